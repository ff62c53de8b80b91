import FastJSON
import Foundation
import SOQL
import SalesforceWire

extension LocalForce {
    /// Everything under `/sobjects`.
    func sObjects(_ context: RequestContext) async throws -> APIResponse {
        let path = context.path
        if path.count == 1 { return try context.only("GET") { try describeGlobal(context) } }
        guard let object = schema.object(named: path[1]) else { throw APIError.notFound }
        if path.count == 2 && context.request.method == "GET" { return try await basicInfo(object, context) }
        if path.count == 3 && path[2] == "describe" { return try context.only("GET") { try describe(object, context) } }
        if path.count == 3 && (path[2] == "updated" || path[2] == "deleted") {
            return try await replication(object, kind: path[2], context)
        }
        guard path.count <= 4 else { throw APIError.notFound }
        return try await recordRequest(
            method: context.request.method, path: Array(path.dropFirst()), request: context.request,
            version: context.version)
    }

    /// Runs a record request in a read or write transaction.
    func recordRequest(method: String, path: [String], request: APIRequest, version: String) async throws -> APIResponse {
        let (schema, userId, clock) = (self.schema, requestUserId(), requestClock())
        let source = RecordAPI.isRead(method: method) ? nil : captureSource(version: version, userId: userId, clock: clock)
        let work: @Sendable (any SQLConnection, ChangeCapture?) throws -> APIResponse = { db, capture in
            try RecordAPI(schema: schema, db: db, userId: userId, version: version, clock: clock, capture: capture)
                .handle(method: method, path: path, parameters: request.parameter, headers: request.headers, body: request.jsonObject)
        }
        if RecordAPI.isRead(method: method) { return try await database.read { db in try work(db, nil) } }
        return try await database.write(capturing: source, work)
    }

    // MARK: - Describe

    private func describeGlobal(_ context: RequestContext) throws -> APIResponse {
        if let notModified = notModified(context) { return notModified }
        let sobjects = schema.objects.map { Describe.summary($0, version: context.version) }
        return .json(
            ["encoding": "UTF-8", "maxBatchSize": 200, "sobjects": .array(sobjects)], headers: ["Last-Modified": HTTPDate.format(startedAt)]
        )
    }

    private func describe(_ object: ObjectDefinition, _ context: RequestContext) throws -> APIResponse {
        if let notModified = notModified(context) { return notModified }
        return .json(
            Describe.full(object, schema: schema, version: context.version), headers: ["Last-Modified": HTTPDate.format(startedAt)])
    }

    /// The schema never changes while the server runs: anything after start is up to date.
    private func notModified(_ context: RequestContext) -> APIResponse? {
        guard let header = context.request.headers["if-modified-since"], let since = HTTPDate.parse(header) ?? SalesforceTime.parse(header),
            since / 1000 >= startedAt / 1000
        else { return nil }
        return APIResponse(status: 304)
    }

    private func basicInfo(_ object: ObjectDefinition, _ context: RequestContext) async throws -> APIResponse {
        let recent = try await recentItems(object: object, limit: 200, version: context.version)
        return .json(["objectDescribe": Describe.summary(object, version: context.version), "recentItems": .array(recent)])
    }

    /// Most recently viewed (or created/modified through the API) records of an object.
    func recentItems(object: ObjectDefinition, limit: Int, version: String) async throws -> [JSONValue] {
        guard object.mruEnabled else { return [] }
        let nameField = object.nameField?.name
        return try await database.read { db in
            let name = nameField.map { ", \(SQLDialect.quote($0))" } ?? ""
            let rows = try db.rows(
                """
                SELECT "Id"\(name) FROM \(SQLDialect.quote(object.name)) WHERE "IsDeleted" = 0
                ORDER BY coalesce("LastViewedDate", "LastModifiedDate") DESC, "Id" DESC LIMIT \(limit)
                """, [])
            return rows.map { row in
                var item: [String: JSONValue] = [
                    "attributes": [
                        "type": .string(object.name),
                        "url": .string("/services/data/v\(version)/sobjects/\(object.name)/\(row[0].text ?? "")"),
                    ],
                    "Id": .string(row[0].text ?? ""),
                ]
                if let nameField { item[nameField] = row.count > 1 ? row[1].text.map(JSONValue.string) ?? .null : .null }
                return .object(item)
            }
        }
    }
}
