import FastJSON

extension LocalForce {
    /// The most records one page of the plain paging API returns.
    public static let maximumPagingPageSize = 2000

    /// `GET /api/{object}?pageIndex=0&pageSize=100&key=Id&fields=A,B`: a plain paging REST API
    /// over an object's live records (not Salesforce's; for syncing with ordinary JSON APIs).
    ///
    /// Records are sorted ascending by `key` (default `Id`): text byte-wise (UTF-8, as SQLite's
    /// BINARY collation and `memcmp`), numbers numerically; records whose key is null are left
    /// out. Page `pageIndex` (from 0) holds positions `pageIndex * pageSize ..< (pageIndex + 1) * pageSize`
    /// of that order at the time of the request. Response:
    /// `{"object":"Account","key":"Id","pageIndex":0,"pageSize":100,"totalSize":1234,"records":[{"Id":"001…","Name":"…"}]}`
    /// with plain records (no `attributes`; all fields unless `fields` is given, the key always).
    /// `?envelope=false` answers the bare `records` array instead; `?base=1` numbers pages from 1.
    func pagingAPI(_ request: APIRequest) async throws -> APIResponse {
        guard request.method == "GET" else {
            throw APIError(405, "METHOD_NOT_ALLOWED", "HTTP Method '\(request.method)' not allowed. Allowed are GET")
        }
        guard request.segments.count == 2, let object = schema.object(named: request.segments[1]) else { throw APIError.notFound }
        let base = try Self.integerParameter(request, "base", default: 0, range: 0...1)
        let pageIndex = try Self.integerParameter(request, "pageIndex", default: base, range: base...Int(Int32.max)) - base
        let pageSize = try Self.integerParameter(request, "pageSize", default: 100, range: 1...Self.maximumPagingPageSize)
        let keyName = request.parameter("key") ?? "Id"
        guard let key = object.field(named: keyName), key.type != .boolean, key.type != .multipicklist else {
            throw APIError(400, "INVALID_FIELD", "Cannot page \(object.name) by '\(keyName)'", fields: [keyName])
        }
        var fields = object.fields
        if let names = request.parameter("fields"), !names.isEmpty {
            fields = []
            for name in names.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !name.isEmpty {
                guard let field = object.field(named: name) else {
                    throw APIError(400, "INVALID_FIELD", "No such column '\(name)' on sobject of type \(object.name)", fields: [name])
                }
                // A field named twice (in any case) is selected once.
                if !fields.contains(where: { $0.name == field.name }) { fields.append(field) }
            }
            if !fields.contains(where: { $0.name == key.name }) { fields.insert(key, at: 0) }
        }
        let envelope = request.parameter("envelope")?.lowercased() != "false"
        let selected = fields
        let (total, rows) = try await database.read { db -> (Int, [[SQLValue]]) in
            let table = SQLDialect.quote(object.name)
            let column = SQLDialect.quote(key.name)
            let live = "FROM \(table) WHERE \"IsDeleted\" = 0 AND \(column) IS NOT NULL"
            let order =
                StorageSchema.columnType(key, db.dialect) == db.dialect.integerType
                    || StorageSchema.columnType(key, db.dialect) == db.dialect.realType
                ? column : db.dialect.binaryOrder(column)
            let total = try db.scalar("SELECT count(*) \(live)", [])?.integer ?? 0
            let columns = selected.map { SQLDialect.quote($0.name) }.joined(separator: ", ")
            let p = db.dialect.placeholder
            let rows = try db.rows(
                "SELECT \(columns) \(live) ORDER BY \(order) LIMIT \(p(1)) OFFSET \(p(2))",
                [.integer(Int64(pageSize)), .integer(Int64(pageIndex) * Int64(pageSize))])
            return (Int(total), rows)
        }
        let records: [JSONValue] = rows.map { row in
            .object(
                Dictionary(zip(selected, row).map { ($0.name, FieldCodec.json($1, for: $0.type)) }, uniquingKeysWith: { first, _ in first })
            )
        }
        guard envelope else { return .json(.array(records)) }
        return .json([
            "object": .string(object.name), "key": .string(key.name), "pageIndex": .int(Int64(pageIndex + base)),
            "pageSize": .int(Int64(pageSize)), "totalSize": .int(Int64(total)), "records": .array(records),
        ])
    }

    private static func integerParameter(_ request: APIRequest, _ name: String, default value: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text = request.parameter(name) else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw APIError(
                400, "INVALID_PARAMETER", "\(name) must be an integer in \(range.lowerBound)...\(range.upperBound), not '\(text)'")
        }
        return number
    }
}
