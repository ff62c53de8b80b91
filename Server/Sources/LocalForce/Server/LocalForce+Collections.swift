import FastJSON
import Foundation
import SalesforceWire

extension LocalForce {
    private static let rolledBack = APIError(
        400, "ALL_OR_NONE_OPERATION_ROLLED_BACK",
        "Record rolled back because not all records were valid and the request was using AllOrNone header", fields: [])

    /// sObject Collections: create (POST), update (PATCH), upsert (PATCH /{T}/{field}), delete
    /// (DELETE ?ids=), retrieve (GET /{T}?ids=&fields= or POST /{T} {ids, fields}).
    func collections(_ context: RequestContext) async throws -> APIResponse {
        let method = context.request.method
        switch (context.path.count, method) { // ["composite", "sobjects", …]
        case (2, "POST"), (2, "PATCH"): return try await saveCollection(context, creating: method == "POST")
        case (4, "PATCH"): return try await upsertCollection(context)
        case (2, "DELETE"): return try await deleteCollection(context)
        case (3, "GET"), (3, "POST"): return try await retrieveCollection(context)
        default: throw APIError(405, "METHOD_NOT_ALLOWED", "HTTP Method '\(method)' not allowed.")
        }
    }

    /// Creates (POST) or updates (PATCH) up to 200 records of any types.
    private func saveCollection(_ context: RequestContext, creating: Bool) async throws -> APIResponse {
        let (records, allOrNone) = try collectionRecords(context, limit: 200)
        // A create writes nothing when it fails (see RecordWriter.create): no savepoint each.
        return try await saveEach(records.map { ($0, nil) }, allOrNone: allOrNone, isolated: !creating) { api, record in
            let type = try Self.recordType(record)
            guard let object = self.schema.object(named: type) else {
                throw APIError(400, "INVALID_TYPE", "sObject type '\(type)' is not supported.")
            }
            var fields = record.objectValue ?? [:]
            fields["attributes"] = nil
            if creating {
                if fields["Id"] != nil || fields["id"] != nil {
                    throw APIError(400, "INVALID_FIELD", "Record ID: cannot specify Id in an insert call", fields: ["Id"])
                }
                let id = try api.writer.create(object, body: fields)
                return ["id": .string(id.value), "success": true, "errors": []]
            }
            guard let text = (fields["Id"] ?? fields["id"])?.stringValue else {
                throw APIError(400, "MISSING_ARGUMENT", "Id not specified in an update call", fields: ["Id"])
            }
            guard let id = SalesforceId(text) else { throw APIError.malformedId(text) }
            guard id.keyPrefix == object.keyPrefix else {
                throw APIError(400, "INVALID_CROSS_REFERENCE_KEY", "invalid cross reference id")
            }
            fields = fields.filter { $0.key.lowercased() != "id" }
            do {
                try api.writer.update(object, id: id, body: fields)
            } catch let error as APIError where error.errorCode == "NOT_FOUND" {
                throw APIError(400, "INVALID_CROSS_REFERENCE_KEY", "invalid cross reference id")
            }
            return ["id": .string(id.value), "success": true, "errors": []]
        }
    }

    /// Upserts up to 200 records of one type by an external-id field (`/composite/sobjects/{T}/{field}`).
    private func upsertCollection(_ context: RequestContext) async throws -> APIResponse {
        guard let object = schema.object(named: context.path[2]) else { throw APIError.notFound }
        let fieldName = context.path[3]
        let (records, allOrNone) = try collectionRecords(context, limit: 200)
        return try await saveEach(records.map { ($0, nil) }, allOrNone: allOrNone) { api, record in
            var fields = record.objectValue ?? [:]
            fields["attributes"] = nil
            guard let key = fields.first(where: { $0.key.lowercased() == fieldName.lowercased() })?.value.stringValue else {
                throw APIError(400, "MISSING_ARGUMENT", "\(fieldName) not specified", fields: [fieldName])
            }
            let (id, created, multiple) = try api.upsertRecord(object, field: fieldName, value: key, body: fields)
            if multiple != nil {
                throw APIError(
                    400, "DUPLICATE_EXTERNAL_ID", "\(fieldName): more than one record found for external id field: \(key)",
                    fields: [fieldName])
            }
            return ["id": .string(id.value), "success": true, "errors": [], "created": .bool(created)]
        }
    }

    /// Deletes up to 200 records by id (`?ids=`, any types).
    private func deleteCollection(_ context: RequestContext) async throws -> APIResponse {
        let ids = (context.request.parameter("ids") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard !ids.isEmpty else { throw APIError(400, "MISSING_ARGUMENT", "ids parameter is required") }
        guard ids.count <= 200 else { throw APIError(400, "LIMIT_EXCEEDED", "ids parameter: too many ids, maximum is 200") }
        let allOrNone = context.request.parameter("allOrNone")?.lowercased() == "true"
        return try await saveEach(ids.map { (.string($0), $0) }, allOrNone: allOrNone) { api, value in
            let text = value.stringValue ?? ""
            guard let id = SalesforceId(text) else { throw APIError.malformedId(text) }
            guard let object = self.schema.object(withKeyPrefix: id.keyPrefix) else {
                throw APIError(400, "INVALID_CROSS_REFERENCE_KEY", "invalid cross reference id")
            }
            do {
                try api.writer.delete(object, id: id)
            } catch let error as APIError where error.errorCode == "NOT_FOUND" {
                throw APIError(400, "INVALID_CROSS_REFERENCE_KEY", "invalid cross reference id")
            }
            return ["id": .string(id.value), "success": true, "errors": []]
        }
    }

    /// Retrieves up to 2,000 records of one type by id: ids and fields in the query (GET) or the body (POST).
    private func retrieveCollection(_ context: RequestContext) async throws -> APIResponse {
        guard let object = schema.object(named: context.path[2]) else { throw APIError.notFound }
        let ids: [String]
        let fields: [String]
        if context.request.method == "GET" {
            ids = (context.request.parameter("ids") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            fields = (context.request.parameter("fields") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        } else {
            let body = try context.request.jsonObject()
            ids = body["ids"]?.arrayValue?.compactMap(\.stringValue) ?? []
            fields = body["fields"]?.arrayValue?.compactMap(\.stringValue) ?? []
        }
        guard !ids.isEmpty, !fields.isEmpty else { throw APIError(400, "MISSING_ARGUMENT", "ids and fields are required") }
        guard ids.count <= 2000 else { throw APIError(400, "LIMIT_EXCEEDED", "Too many ids: the maximum is 2000") }
        return try await retrieveCollection(object, ids: ids, fields: fields, version: context.version)
    }

    private static func recordType(_ record: JSONValue) throws(APIError) -> String {
        guard let type = record["attributes"]?["type"]?.stringValue else {
            throw APIError(400, "INVALID_TYPE", "sObject type 'null' is not supported.")
        }
        return type
    }

    private func collectionRecords(_ context: RequestContext, limit: Int) throws(APIError) -> ([JSONValue], Bool) {
        let body = try context.request.jsonObject()
        guard let records = body["records"]?.arrayValue else { throw APIError(400, "JSON_PARSER_ERROR", "records is required") }
        guard records.count <= limit else { throw APIError(400, "EXCEEDED_ID_LIMIT", "Record limit exceeded: the maximum is \(limit)") }
        return (records, body["allOrNone"]?.boolValue ?? false)
    }

    /// Saves each item; results in request order. With `allOrNone`, one failure rolls back all
    /// (others report `ALL_OR_NONE_OPERATION_ROLLED_BACK`); without, a failed item's partial
    /// writes are undone by its savepoint (`isolated`; saves that fail before writing need none).
    private func saveEach(
        _ items: [(JSONValue, String?)], allOrNone: Bool, isolated: Bool = true,
        _ save: @escaping @Sendable (RecordAPI, JSONValue) throws -> JSONValue
    ) async throws -> APIResponse {
        let (schema, userId, clock) = (self.schema, requestUserId(), requestClock())
        let source = captureSource(version: "66.0", userId: userId, clock: clock)
        struct Failed: Error { var results: [JSONValue] }
        @Sendable func failure(_ error: APIError, id: String?) -> JSONValue {
            var result: [String: JSONValue] = ["success": false, "errors": [error.saveResultJSON]]
            if let id { result["id"] = .string(id) }
            return .object(result)
        }
        do {
            let results = try await database.write(capturing: source) { db, capture -> [JSONValue] in
                let api = RecordAPI(
                    schema: schema, db: db, userId: userId, version: "66.0", clock: clock,
                    counters: isolated ? nil : CounterBlock(size: items.count), capture: capture)
                var results: [JSONValue] = []
                var failed = false
                for (item, id) in items {
                    do {
                        results.append(isolated ? try withSavepoint(db, capture: capture) { try save(api, item) } : try save(api, item))
                    } catch let error as APIError {
                        failed = true
                        results.append(failure(error, id: id))
                    }
                }
                if failed && allOrNone { throw Failed(results: results) }
                return results
            }
            return .json(.array(results))
        } catch let failed as Failed {
            return .json(
                .array(
                    failed.results.enumerated().map { index, result in
                        result["success"] == false ? result : failure(Self.rolledBack, id: items[index].1)
                    }))
        }
    }

    private func retrieveCollection(_ object: ObjectDefinition, ids: [String], fields: [String], version: String) async throws
        -> APIResponse
    {
        let (schema, userId) = (self.schema, requestUserId())
        let bytes = try await database.read { db -> [UInt8] in
            let api = RecordAPI(schema: schema, db: db, userId: userId, version: version, clock: WriteClock(now: 0))
            let names = try api.requestedFields(object, fields.joined(separator: ","))
            let normalized = ids.map { SalesforceId($0)?.value ?? $0 }
            var writer = JSONWriter(reservingCapacity: 4096)
            writer.write(punctuation: "[")
            for (index, record) in try api.recordJSON(object, ids: normalized, fields: names).enumerated() {
                if index > 0 { writer.write(punctuation: ",") }
                if let record { writer.writeRaw(record) } else { writer.write(.null) }
            }
            writer.write(punctuation: "]")
            return writer.bytes
        }
        return .json(bytes: bytes)
    }
}

extension RecordAPI {
    var writer: RecordWriter {
        RecordWriter(schema: schema, db: db, userId: userId, clock: clock, counters: counters, capture: capture)
    }
}
