import FastJSON

extension LocalForce {
    /// The org id LocalForce reports (it has one org).
    static let organizationId = "00D000000000001AAA"

    /// `GET /services/oauth2/userinfo`: who the token belongs to (the API user), in the OpenID
    /// Connect shape Salesforce answers with.
    func userInfo(_ request: APIRequest) async throws -> APIResponse {
        guard request.method == "GET" || request.method == "POST" else {
            throw APIError(405, "METHOD_NOT_ALLOWED", "HTTP Method '\(request.method)' not allowed. Allowed are GET,POST")
        }
        let userId = self.userId
        let row = try await database.read { db in
            try db.rows(
                "SELECT \"Username\", \"FirstName\", \"LastName\", \"Email\" FROM \"User\" WHERE \"Id\" = \(db.dialect.placeholder(1))",
                [.text(userId)]
            ).first
        }
        let text = { (index: Int) -> String in
            guard let row, index < row.count else { return "" }
            return row[index].text ?? ""
        }
        let (first, last) = (text(1), text(2))
        return .json([
            "sub": .string("http://localhost/id/\(Self.organizationId)/\(userId)"),
            "user_id": .string(userId), "organization_id": .string(Self.organizationId),
            "preferred_username": .string(text(0)), "email": .string(text(3)),
            "name": .string([first, last].filter { !$0.isEmpty }.joined(separator: " ")),
            "given_name": .string(first), "family_name": .string(last),
            "zoneinfo": "GMT", "locale": "en_US", "language": "en_US", "active": true,
        ])
    }
}
