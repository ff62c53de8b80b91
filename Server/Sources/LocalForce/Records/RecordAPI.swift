import FastJSON
import Foundation
import SOQL
@_spi(MSyncInternal) import SalesforceWire

/// The record endpoints under `/sobjects/{T}`, executed synchronously on one connection, so
/// the same code serves single requests and composite subrequests (inside their transaction).
struct RecordAPI {
    let schema: Schema
    let db: any SQLConnection
    let userId: String
    let version: String
    let clock: WriteClock
    /// Shared by the writes of one transaction that creates many records.
    var counters: CounterBlock? = nil
    /// The transaction's change events (nil when not captured).
    var capture: ChangeCapture? = nil

    /// Whether a request to these path segments (after `sobjects`) only reads.
    static func isRead(method: String) -> Bool { method == "GET" }

    /// Handles `path` = `[T]`, `[T, id]`, `[T, "Id"]` or `[T, field, value]` (not describe).
    func handle(
        method: String, path: [String], parameters: (String) -> String?, headers: [String: String],
        body: () throws(APIError) -> [String: JSONValue]
    ) throws -> APIResponse {
        guard let objectName = path.first, let object = schema.object(named: objectName) else { throw APIError.notFound }
        switch (path.count, method) {
        case (1, "POST"):
            return created(object, try writer.create(object, body: try body()), upsert: false)
        case (2, "POST") where path[1].lowercased() == "id":
            return try upsert(object, field: "Id", value: "", body: try body())
        case (2, _):
            return try record(object, id: path[1], method: method, parameters: parameters, headers: headers, body: body)
        case (3, "PATCH"), (3, "POST"):
            return try upsert(object, field: path[1], value: path[2], body: try body())
        case (3, "GET"), (3, "DELETE"):
            let field = try externalIdField(object, path[1])
            let ids = try writer.ids(object, where: field, equals: try FieldCodec.storage(.string(path[2]), for: field))
            guard let first = ids.first, let id = SalesforceId(first) else { throw APIError.notFound }
            if ids.count > 1 { return multipleMatches(object, ids) }
            if method == "GET" { return try retrieve(object, id: id, fields: try requestedFields(object, parameters("fields"))) }
            try writer.delete(object, id: id)
            return .noContent()
        default:
            throw APIError(405, "METHOD_NOT_ALLOWED", "HTTP Method '\(method)' not allowed.")
        }
    }

    private func created(_ object: ObjectDefinition, _ id: SalesforceId, upsert: Bool) -> APIResponse {
        var body: [String: JSONValue] = ["id": .string(id.value), "success": true, "errors": []]
        if upsert { body["created"] = true }
        return .json(.object(body), status: 201, headers: ["Location": "/services/data/v\(version)/sobjects/\(object.name)/\(id.value)"])
    }

    private func record(
        _ object: ObjectDefinition, id text: String, method: String, parameters: (String) -> String?,
        headers: [String: String], body: () throws(APIError) -> [String: JSONValue]
    ) throws -> APIResponse {
        guard let id = SalesforceId(text) else { throw APIError.malformedId(text) }
        guard id.keyPrefix == object.keyPrefix else { throw APIError.notFound }
        switch method {
        case "GET":
            return try retrieve(object, id: id, fields: try requestedFields(object, parameters("fields")))
        case "PATCH":
            var ifUnmodifiedSince: Int64?
            if let header = headers["if-unmodified-since"] {
                // An ISO-8601 time is accepted too (LocalForce is lenient here).
                guard let date = HTTPDate.parse(header) ?? SalesforceTime.parse(header) else {
                    throw APIError(400, "INVALID_HEADER_VALUE", "Invalid If-Unmodified-Since header: \(header)")
                }
                ifUnmodifiedSince = date
            }
            try writer.update(object, id: id, body: try body(), ifUnmodifiedSince: ifUnmodifiedSince)
            return .noContent()
        case "DELETE":
            try writer.delete(object, id: id)
            return .noContent()
        default:
            throw APIError(405, "METHOD_NOT_ALLOWED", "HTTP Method '\(method)' not allowed. Allowed are GET,PATCH,DELETE")
        }
    }

    /// `?fields=A, B` → field names (unknown ones are `INVALID_FIELD`); nil for all fields.
    func requestedFields(_ object: ObjectDefinition, _ parameter: String?) throws(APIError) -> [String]? {
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

    /// One live record as JSON: `attributes` and the fields (all of them, nulls included, by default).
    func retrieve(_ object: ObjectDefinition, id: SalesforceId, fields: [String]?) throws -> APIResponse {
        guard let found = try recordJSON(object, ids: [id.value], fields: fields).first, let bytes = found else { throw APIError.notFound }
        return .json(bytes: bytes)
    }

    /// Live records as JSON, one entry per id (`nil` when missing or deleted), in `ids` order.
    func recordJSON(_ object: ObjectDefinition, ids: [String], fields: [String]?) throws -> [[UInt8]?] {
        var names = fields ?? object.fields.map(\.name)
        if !names.contains("Id") { names.insert("Id", at: 0) }
        let query = Query(selectItems: names.map { .field(FieldPath([$0])) }, object: object.name)
        let engine = QueryEngine(schema: schema, db: db, now: clock.date, includeDeleted: false)
        // One query for all the ids (a collection retrieve has up to 2,000), each record written on its own.
        var byId: [String: [UInt8]] = [:]
        do {
            try engine.eachRecord(query, ids: ids[...], version: version) { id, write in
                var writer = JSONWriter(reservingCapacity: 1024)
                write(&writer)
                byId[id] = writer.bytes
            }
        } catch {
            throw LocalForce.apiError(error, query.description)
        }
        return ids.map { byId[$0] }
    }

    private func externalIdField(_ object: ObjectDefinition, _ name: String) throws(APIError) -> FieldDefinition {
        guard let field = object.field(named: name), field.name == "Id" || field.externalId else { throw APIError.notFound }
        return field
    }

    private func multipleMatches(_ object: ObjectDefinition, _ ids: [String]) -> APIResponse {
        .json(.array(ids.map { .string("/services/data/v\(version)/sobjects/\(object.name)/\($0)") }), status: 300)
    }

    /// Upsert by external id: 201 `created:true`, 200 `created:false` (204 before v46), 300 on several matches.
    func upsert(_ object: ObjectDefinition, field name: String, value: String, body original: [String: JSONValue]) throws -> APIResponse {
        let (id, created, multiple) = try upsertRecord(object, field: name, value: value, body: original)
        if let multiple { return multipleMatches(object, multiple) }
        if created { return self.created(object, id, upsert: true) }
        if (Double(version) ?? 66) < 46 { return .noContent() }
        return .json(["id": .string(id.value), "success": true, "errors": [], "created": false])
    }

    /// The upsert itself: the id written and whether it was created, or the ids of several matches.
    func upsertRecord(_ object: ObjectDefinition, field name: String, value: String, body original: [String: JSONValue])
        throws -> (SalesforceId, Bool, [String]?)
    {
        let field = try externalIdField(object, name)
        var body = original
        if let given = body.first(where: { $0.key.lowercased() == field.name.lowercased() })?.value {
            guard value.isEmpty || given.stringValue == value else {
                throw APIError(
                    400, "INVALID_FIELD", "The value of the external ID field in the body does not match the URL", fields: [field.name])
            }
            body = body.filter { $0.key.lowercased() != field.name.lowercased() }
            if value.isEmpty, field.name != "Id", let given = given.stringValue {
                return try upsertRecord(object, field: name, value: given, body: body)
            }
        }
        if value.isEmpty { return (try writer.create(object, body: body), true, nil) }
        let ids = try writer.ids(object, where: field, equals: try FieldCodec.storage(.string(value), for: field))
        if ids.count > 1 { return (SalesforceId(prefix: object.keyPrefix, sequence: 0), false, ids) }
        if let existing = ids.first, let id = SalesforceId(existing) {
            try writer.update(object, id: id, body: body)
            return (id, false, nil)
        }
        if field.name == "Id" { throw APIError.notFound }
        body[field.name] = .string(value)
        return (try writer.create(object, body: body), true, nil)
    }
}
