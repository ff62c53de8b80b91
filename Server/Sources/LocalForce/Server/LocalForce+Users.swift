import FastJSON
@_spi(MSyncInternal) import SalesforceWire

extension LocalForce {
    /// The user a request is authenticated as, while it is handled (`nil`: the API user).
    @TaskLocal static var sessionUserId: String?

    /// The user the current request acts as: the one its OAuth token was issued to, or the API
    /// user for the static token. New records are owned by, created and modified by them.
    func requestUserId() -> String { Self.sessionUserId ?? userId }

    /// The id of the `User` record with this username, created when missing (the first user
    /// created is its own creator).
    static func ensureUser(
        _ user: AuthConfiguration.User, schema: Schema, db: any SQLConnection, creator: String?, clock: WriteClock
    ) throws -> String {
        if let existing = try db.rows(
            "SELECT \"Id\" FROM \"User\" WHERE LOWER(\"Username\") = \(db.dialect.placeholder(1))", [.text(user.username.lowercased())]
        ).first?.first?.text {
            return existing
        }
        let bootstrap = creator ?? SalesforceId(prefix: "005", sequence: 0).value
        guard let object = schema.object(named: "User") else { return bootstrap }
        let writer = RecordWriter(schema: schema, db: db, userId: bootstrap, clock: clock)
        var body: [String: JSONValue] = [
            "Username": .string(user.username), "LastName": .string(user.lastName),
            "Alias": .string(String(user.username.prefix { $0 != "@" }.prefix(8))),
        ]
        if let first = user.firstName { body["FirstName"] = .string(first) }
        if let email = user.email { body["Email"] = .string(email) }
        let id = try writer.create(object, body: body)
        if creator == nil {
            try db.execute(
                "UPDATE \"User\" SET \"CreatedById\" = \(db.dialect.placeholder(1)), \"LastModifiedById\" = \(db.dialect.placeholder(2)) WHERE \"Id\" = \(db.dialect.placeholder(3))",
                [.text(id.value), .text(id.value), .text(id.value)])
        }
        return id.value
    }

    /// A duration in whole milliseconds, kept between one second and a year.
    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let clamped = max(1, min(366 * 86_400, seconds))
        return clamped * 1000 + (seconds == clamped ? attoseconds / 1_000_000_000_000_000 : 0)
    }
}
