import FastJSON
import Foundation
import SOQL

extension LocalForce {
    /// Everything under `/sobjects`.
    func sObjects(_ context: RequestContext) async throws -> APIResponse {
        let path = context.path
        if path.count == 1 { return try context.only("GET") { try describeGlobal(context) } }
        guard let object = schema.object(named: path[1]) else { throw APIError.notFound }
        switch path.count {
        case 2:
            switch context.request.method {
            case "GET": return try await basicInfo(object, context)
            case "POST": return try await create(object, context)
            default: throw APIError(405, "METHOD_NOT_ALLOWED", "HTTP Method '\(context.request.method)' not allowed. Allowed are GET,POST")
            }
        case 3 where path[2] == "describe":
            return try context.only("GET") { try describe(object, context) }
        case 3 where path[2].lowercased() == "id" && context.request.method == "POST":
            return try await upsert(object, field: "Id", value: "", context)
        case 3:
            return try await record(object, id: path[2], context)
        case 4:
            return try await byExternalId(object, field: path[2], value: path[3], context)
        default:
            throw APIError.notFound
        }
    }

    // MARK: - Records

    private func create(_ object: ObjectDefinition, _ context: RequestContext) async throws -> APIResponse {
        let body = try context.request.jsonObject()
        let (schema, userId) = (self.schema, self.userId)
        let id = try await database.write { db in
            try RecordWriter(schema: schema, db: db, userId: userId, now: Self.nowMilliseconds()).create(object, body: body)
        }
        return .json(["id": .string(id.value), "success": true, "errors": []], status: 201,
                     headers: ["Location": "/services/data/v\(context.version)/sobjects/\(object.name)/\(id.value)"])
    }

    private func record(_ object: ObjectDefinition, id text: String, _ context: RequestContext) async throws -> APIResponse {
        guard let id = SalesforceId(text) else { throw APIError.malformedId(text) }
        guard id.keyPrefix == object.keyPrefix else { throw APIError.notFound }
        let (schema, userId) = (self.schema, self.userId)
        switch context.request.method {
        case "GET":
            let fields = try requestedFields(object, context.request.parameter("fields"))
            return try await retrieve(object, id: id, fields: fields, context)
        case "PATCH":
            let body = try context.request.jsonObject()
            let ifUnmodifiedSince = try context.request.headers["if-unmodified-since"].map { header throws(APIError) in
                guard let date = HTTPDate.parse(header) else {
                    throw APIError(400, "INVALID_HEADER_VALUE", "Invalid If-Unmodified-Since header: \(header)")
                }
                return date
            }
            try await database.write { db in
                try RecordWriter(schema: schema, db: db, userId: userId, now: Self.nowMilliseconds())
                    .update(object, id: id, body: body, ifUnmodifiedSince: ifUnmodifiedSince)
            }
            return .noContent()
        case "DELETE":
            try await database.write { db in
                try RecordWriter(schema: schema, db: db, userId: userId, now: Self.nowMilliseconds()).delete(object, id: id)
            }
            return .noContent()
        default:
            throw APIError(405, "METHOD_NOT_ALLOWED", "HTTP Method '\(context.request.method)' not allowed. Allowed are GET,PATCH,DELETE")
        }
    }

    /// `?fields=A, B` → field names (unknown ones are `INVALID_FIELD`); nil for all fields.
    private func requestedFields(_ object: ObjectDefinition, _ parameter: String?) throws(APIError) -> [String]? {
        guard let parameter, !parameter.isEmpty else { return nil }
        var names: [String] = []
        for name in parameter.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !name.isEmpty {
            guard let field = object.field(named: name) else {
                throw APIError(400, "INVALID_FIELD", "No such column '\(name)' on sobject of type \(object.name)", fields: [name])
            }
            names.append(field.name)
        }
        return names
    }

    /// One record as JSON: `attributes` and the fields (all of them, nulls included, by default).
    func retrieve(_ object: ObjectDefinition, id: SalesforceId, fields: [String]?, _ context: RequestContext) async throws -> APIResponse {
        var names = fields ?? object.fields.map(\.name)
        if !names.contains("Id") { names.insert("Id", at: 0) }
        let query = Query(selectItems: names.map { .field(FieldPath([$0])) }, object: object.name)
        let (schema, version) = (self.schema, context.version)
        let bytes: [UInt8]? = try await database.read { db in
            let state = try RecordWriter(schema: schema, db: db, userId: "", now: 0).state(object, id: id)
            guard !state.deleted else { return nil }
            var writer = JSONWriter(reservingCapacity: 1024)
            do {
                try QueryEngine(schema: schema, db: db, now: Date(), includeDeleted: false).writeRecords(query, ids: [id.value], version: version, to: &writer)
            } catch {
                throw Self.apiError(error, query.description)
            }
            return writer.bytes
        }
        guard let bytes, !bytes.isEmpty else { throw APIError.notFound }
        return .json(bytes: bytes)
    }

    /// `/sobjects/{T}/{field}/{value}`: GET, DELETE, and PATCH (upsert).
    private func byExternalId(_ object: ObjectDefinition, field name: String, value: String, _ context: RequestContext) async throws -> APIResponse {
        switch context.request.method {
        case "PATCH", "POST":
            return try await upsert(object, field: name, value: value, context)
        case "GET", "DELETE":
            let field = try externalIdField(object, name)
            let (schema, userId) = (self.schema, self.userId)
            let ids = try await database.read { db in
                let stored = try FieldCodec.storage(.string(value), for: field)
                return try RecordWriter(schema: schema, db: db, userId: userId, now: 0).ids(object, where: field, equals: stored)
            }
            guard let first = ids.first, let id = SalesforceId(first) else { throw APIError.notFound }
            if ids.count > 1 { return multipleMatches(object, ids, context) }
            if context.request.method == "GET" {
                return try await retrieve(object, id: id, fields: try requestedFields(object, context.request.parameter("fields")), context)
            }
            try await database.write { db in
                try RecordWriter(schema: schema, db: db, userId: userId, now: Self.nowMilliseconds()).delete(object, id: id)
            }
            return .noContent()
        default:
            throw APIError(405, "METHOD_NOT_ALLOWED", "HTTP Method '\(context.request.method)' not allowed. Allowed are GET,PATCH,DELETE")
        }
    }

    private func externalIdField(_ object: ObjectDefinition, _ name: String) throws(APIError) -> FieldDefinition {
        guard let field = object.field(named: name), field.name == "Id" || field.externalId else { throw APIError.notFound }
        return field
    }

    private func multipleMatches(_ object: ObjectDefinition, _ ids: [String], _ context: RequestContext) -> APIResponse {
        .json(.array(ids.map { .string("/services/data/v\(context.version)/sobjects/\(object.name)/\($0)") }), status: 300)
    }

    /// Upsert by external id: 201 `created:true`, 200 `created:false` (204 before v46), 300 on several matches.
    private func upsert(_ object: ObjectDefinition, field name: String, value: String, _ context: RequestContext) async throws -> APIResponse {
        let field = try externalIdField(object, name)
        var body = try context.request.jsonObject()
        if let given = body[field.name] ?? body.first(where: { $0.key.lowercased() == field.name.lowercased() })?.value {
            guard given.stringValue == value || value.isEmpty else {
                throw APIError(400, "INVALID_FIELD", "The value of the external ID field in the body does not match the URL", fields: [field.name])
            }
            body = body.filter { $0.key.lowercased() != field.name.lowercased() }
        }
        let (schema, userId, fields) = (self.schema, self.userId, body)
        let outcome: (ids: [String], created: Bool) = try await database.write { db in
            var body = fields
            let writer = RecordWriter(schema: schema, db: db, userId: userId, now: Self.nowMilliseconds())
            if value.isEmpty {
                return ([try writer.create(object, body: body).value], true)
            }
            let stored = try FieldCodec.storage(.string(value), for: field)
            let ids = try writer.ids(object, where: field, equals: stored)
            if ids.count > 1 { return (ids, false) }
            if let existing = ids.first, let id = SalesforceId(existing) {
                try writer.update(object, id: id, body: body)
                return ([existing], false)
            }
            if field.name == "Id" { throw APIError.notFound }
            body[field.name] = .string(value)
            return ([try writer.create(object, body: body).value], true)
        }
        if outcome.ids.count > 1 { return multipleMatches(object, outcome.ids, context) }
        let id = outcome.ids[0]
        if !outcome.created, (Double(context.version) ?? 66) < 46 { return .noContent() }
        return .json(["id": .string(id), "success": true, "errors": [], "created": .bool(outcome.created)], status: outcome.created ? 201 : 200,
                     headers: outcome.created ? ["Location": "/services/data/v\(context.version)/sobjects/\(object.name)/\(id)"] : [:])
    }

    // MARK: - Describe

    private func describeGlobal(_ context: RequestContext) throws -> APIResponse {
        if let notModified = notModified(context) { return notModified }
        let sobjects = schema.objects.map { Describe.summary($0, version: context.version) }
        return .json(["encoding": "UTF-8", "maxBatchSize": 200, "sobjects": .array(sobjects)], headers: ["Last-Modified": HTTPDate.format(startedAt)])
    }

    private func describe(_ object: ObjectDefinition, _ context: RequestContext) throws -> APIResponse {
        if let notModified = notModified(context) { return notModified }
        return .json(Describe.full(object, schema: schema, version: context.version), headers: ["Last-Modified": HTTPDate.format(startedAt)])
    }

    /// The schema never changes while the server runs: anything after start is up to date.
    private func notModified(_ context: RequestContext) -> APIResponse? {
        guard let header = context.request.headers["if-modified-since"], let since = HTTPDate.parse(header),
              since / 1000 >= startedAt / 1000 else { return nil }
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
            let rows = try db.rows("""
                SELECT "Id"\(name) FROM \(SQLDialect.quote(object.name)) WHERE "IsDeleted" = 0
                ORDER BY coalesce("LastViewedDate", "LastModifiedDate") DESC, "Id" DESC LIMIT \(limit)
                """, [])
            return rows.map { row in
                var item: [String: JSONValue] = [
                    "attributes": ["type": .string(object.name), "url": .string("/services/data/v\(version)/sobjects/\(object.name)/\(row[0].text ?? "")")],
                    "Id": .string(row[0].text ?? ""),
                ]
                if let nameField { item[nameField] = row.count > 1 ? row[1].text.map(JSONValue.string) ?? .null : .null }
                return .object(item)
            }
        }
    }
}
