public import FastJSON
import Foundation
public import SalesforceWire

extension RestClient {
    private func sobjectPath(_ parts: String...) -> String {
        path("sobjects/" + parts.map(RestClient.encodeSegment).joined(separator: "/"))
    }

    /// Creates a record; returns its id. Not retried (a lost response must not create twice).
    public func create(_ objectType: String, fields: JSONValue) async throws -> String {
        let response = try await send(RestRequest(method: .post, path: sobjectPath(objectType), json: fields))
        guard let id = try response.json()["id"]?.stringValue else { throw RestError.invalidResponse("create returned no id") }
        return id
    }

    /// Updates a record. With `ifUnmodifiedSince` (epoch milliseconds, sent in whole seconds),
    /// the server refuses (412) if the record changed after it.
    public func update(_ objectType: String, id: String, fields: JSONValue, ifUnmodifiedSince: Int64? = nil) async throws {
        var request = RestRequest(method: .patch, path: sobjectPath(objectType, id), json: fields)
        if let ifUnmodifiedSince { request.headers["If-Unmodified-Since"] = HTTPDate.format(ifUnmodifiedSince) }
        _ = try await send(request)
    }

    /// Deletes a record.
    public func delete(_ objectType: String, id: String) async throws {
        _ = try await send(RestRequest(method: .delete, path: sobjectPath(objectType, id)))
    }

    /// Upserts by external id; returns the id and whether it was created.
    public func upsert(_ objectType: String, externalIdField: String, externalId: String, fields: JSONValue) async throws -> (
        id: String, created: Bool
    ) {
        let response = try await send(RestRequest(method: .patch, path: sobjectPath(objectType, externalIdField, externalId), json: fields))
        let json = try response.json()
        guard let id = json["id"]?.stringValue else { throw RestError.invalidResponse("upsert returned no id") }
        return (id, json["created"]?.boolValue ?? (response.status == 201))
    }

    /// Retrieves a record (all fields, or the given ones).
    public func retrieve(_ objectType: String, id: String, fields: [String]? = nil) async throws -> JSONValue {
        let items = fields.map { [("fields", $0.joined(separator: ","))] } ?? []
        return try await send(RestRequest(method: .get, path: sobjectPath(objectType, id), queryItems: items)).json()
    }

    // MARK: - sObject Collections

    private func saveResults(_ response: RestResponse) throws -> [SaveResult] {
        guard let array = try response.json().arrayValue else { throw RestError.invalidResponse("collection response is not an array") }
        return array.map(SaveResult.init)
    }

    /// Creates up to 200 records (each with `attributes.type`). Not retried.
    public func createRecords(_ records: [JSONValue], allOrNone: Bool = false) async throws -> [SaveResult] {
        try saveResults(
            try await send(
                RestRequest(
                    method: .post, path: path("composite/sobjects"),
                    json: ["allOrNone": .bool(allOrNone), "records": .array(records)])))
    }

    /// Updates up to 200 records (each with `Id` and `attributes.type`).
    public func updateRecords(_ records: [JSONValue], allOrNone: Bool = false) async throws -> [SaveResult] {
        try saveResults(
            try await send(
                RestRequest(
                    method: .patch, path: path("composite/sobjects"),
                    json: ["allOrNone": .bool(allOrNone), "records": .array(records)])))
    }

    /// Upserts up to 200 records of one type by an external id field (idempotent: retried).
    public func upsertRecords(_ objectType: String, externalIdField: String, records: [JSONValue], allOrNone: Bool = false) async throws
        -> [SaveResult]
    {
        try saveResults(
            try await send(
                RestRequest(
                    method: .patch,
                    path: path("composite/sobjects/\(RestClient.encodeSegment(objectType))/\(RestClient.encodeSegment(externalIdField))"),
                    json: ["allOrNone": .bool(allOrNone), "records": .array(records)])))
    }

    /// Deletes up to 200 records.
    public func deleteRecords(_ ids: [String], allOrNone: Bool = false) async throws -> [SaveResult] {
        try saveResults(
            try await send(
                RestRequest(
                    method: .delete, path: path("composite/sobjects"),
                    queryItems: [("ids", ids.joined(separator: ",")), ("allOrNone", allOrNone ? "true" : "false")])))
    }

    /// Retrieves up to 2000 records of one type by id; `nil` for deleted or missing ones.
    public func retrieveRecords(_ objectType: String, ids: [String], fields: [String]) async throws -> [JSONValue?] {
        let response = try await send(
            RestRequest(
                method: .post, path: path("composite/sobjects/\(RestClient.encodeSegment(objectType))"),
                json: ["ids": .array(ids.map(JSONValue.string)), "fields": .array(fields.map(JSONValue.string))],
                isIdempotent: true))
        guard let array = try response.json().arrayValue else { throw RestError.invalidResponse("retrieve response is not an array") }
        return array.map { $0.isNull ? JSONValue?.none : $0 }
    }

    /// A composite request (up to 25 subrequests, later ones may refer to earlier results).
    ///
    /// - Returns: The subresponses in the server's order; entries that are not subresponses
    ///   are left out, so look results up by `CompositeSubresponse/referenceId`.
    public func composite(_ subrequests: [CompositeSubrequest], allOrNone: Bool) async throws -> [CompositeSubresponse] {
        let response = try await send(
            RestRequest(
                method: .post, path: path("composite"),
                json: ["allOrNone": .bool(allOrNone), "compositeRequest": .array(subrequests.map(\.json))]))
        return (try response.json()["compositeResponse"]?.arrayValue ?? []).compactMap(CompositeSubresponse.init(json:))
    }
}
