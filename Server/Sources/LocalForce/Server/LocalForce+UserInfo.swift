import FastJSON

extension LocalForce {
    /// The org id LocalForce reports (it has one org).
    static let organizationId = "00D000000000001AAA"

    /// A user's record fields the identity answers need.
    private struct UserRecord {
        var id: String
        var username: String
        var firstName: String
        var lastName: String
        var email: String
        var isActive: Bool
        var lastModified: String

        var displayName: String { [firstName, lastName].filter { !$0.isEmpty }.joined(separator: " ") }
    }

    private func userRecord(_ id: String) async throws -> UserRecord? {
        let row = try await database.read { db in
            try db.rows(
                "SELECT \"Username\", \"FirstName\", \"LastName\", \"Email\", \"IsActive\", \"LastModifiedDate\" FROM \"User\" WHERE \"Id\" = \(db.dialect.placeholder(1))",
                [.text(id)]
            ).first
        }
        guard let row, row.count == 6 else { return nil }
        let text = { (index: Int) -> String in row[index].text ?? "" }
        let active = row[4].integer.map { $0 != 0 } ?? (row[4].text.map { $0 == "true" || $0 == "1" } ?? true)
        return UserRecord(
            id: id, username: text(0), firstName: text(1), lastName: text(2), email: text(3), isActive: active, lastModified: text(5))
    }

    /// `GET /services/oauth2/userinfo`: who the token belongs to, in the OpenID Connect shape
    /// Salesforce answers with.
    func userInfo(_ request: APIRequest, userId: String) async throws -> APIResponse {
        guard request.method == "GET" || request.method == "POST" else {
            throw APIError(405, "METHOD_NOT_ALLOWED", "HTTP Method '\(request.method)' not allowed. Allowed are GET,POST")
        }
        guard let user = try await userRecord(userId) else { throw APIError.invalidSession }
        let instance = instanceURL(of: request)
        return .json([
            "sub": .string("\(instance)/id/\(Self.organizationId)/\(user.id)"),
            "user_id": .string(user.id), "organization_id": .string(Self.organizationId),
            "preferred_username": .string(user.username), "nickname": .string(String(user.username.prefix { $0 != "@" })),
            "name": .string(user.displayName), "email": .string(user.email), "email_verified": true,
            "given_name": .string(user.firstName), "family_name": .string(user.lastName),
            "zoneinfo": "GMT", "locale": "en_US", "language": "en_US", "active": .bool(user.isActive), "user_type": "STANDARD",
            "utcOffset": 0, "updated_at": .string(user.lastModified), "urls": urls(instance: instance, userId: user.id),
        ])
    }

    /// `GET /id/{orgId}/{userId}`: the identity service's answer for a user of this org.
    func identity(_ request: APIRequest, caller: String) async throws -> APIResponse {
        guard request.method == "GET" || request.method == "POST" else {
            throw APIError(405, "METHOD_NOT_ALLOWED", "HTTP Method '\(request.method)' not allowed. Allowed are GET,POST")
        }
        let segments = request.segments
        guard segments.count == 3, segments[1] == Self.organizationId || segments[1] == String(Self.organizationId.prefix(15)),
            let user = try await userRecord(segments[2])
        else { throw APIError(404, "NOT_FOUND", "Bad_Id") }
        let instance = instanceURL(of: request)
        return .json([
            "id": .string("\(instance)/id/\(Self.organizationId)/\(user.id)"), "asserted_user": .bool(user.id == caller),
            "user_id": .string(user.id), "organization_id": .string(Self.organizationId),
            "username": .string(user.username), "nick_name": .string(String(user.username.prefix { $0 != "@" })),
            "display_name": .string(user.displayName), "email": .string(user.email), "email_verified": true,
            "first_name": .string(user.firstName), "last_name": .string(user.lastName), "timezone": "GMT",
            "active": .bool(user.isActive), "user_type": "STANDARD", "language": "en_US", "locale": "en_US", "utcOffset": 0,
            "last_modified_date": .string(user.lastModified), "is_app_installed": true,
            "urls": urls(instance: instance, userId: user.id),
        ])
    }

    /// The `urls` map of the identity answers: where the user's REST resources are.
    private func urls(instance: String, userId: String) -> JSONValue {
        let data = "\(instance)/services/data/v{version}"
        return [
            "rest": .string("\(data)/"), "sobjects": .string("\(data)/sobjects/"), "search": .string("\(data)/search/"),
            "query": .string("\(data)/query/"), "recent": .string("\(data)/recent/"),
            "profile": .string("\(instance)/\(userId)"), "custom_domain": .string(instance),
        ]
    }
}
