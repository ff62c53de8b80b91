public import FastJSON
public import SalesforceREST
import SalesforceWire

/// The server's answer to one create, update or delete of a sync up: the HTTP status, and the
/// body (`{"id": …}` for a create, Salesforce error items for a failure, null when empty).
public struct SyncUpResponse: Sendable, Equatable {
    /// The HTTP status (201 created, 204 updated or deleted, 404 gone, 412 changed since, …).
    public var status: Int
    /// The response body as JSON.
    public var body: JSONValue

    /// An answer as received.
    public init(status: Int, body: JSONValue = .null) {
        self.status = status
        self.body = body
    }

    /// Whether the answer leaves the request's outcome unknown: a server error or timeout
    /// status (5xx, 408) without Salesforce's JSON error list, as a gateway or proxy answers
    /// (a 502, 503 or 504 page) after the request may have reached the server and committed.
    /// Salesforce's own error answers carry the list and mean nothing was done.
    public var outcomeIsUnknown: Bool {
        guard status >= 500 || status == 408 else { return false }
        return body.arrayValue?.contains { $0["errorCode"]?.stringValue != nil } != true
    }

    /// What `__last_error__` records for an answer whose outcome is unknown: its status, as an
    /// error item the way Salesforce writes them.
    var unknownOutcomeError: JSONValue {
        [
            [
                "errorCode": "OUTCOME_UNKNOWN",
                "message": .string("HTTP \(status) without an answer from the API: the server may have done it"),
            ]
        ]
    }
}

/// A sync up target built on the SDK's per-record hooks (`isNewerThanServer`, `createOnServer`,
/// `updateOnServer`, `deleteOnServer`): the sync applies the SDK's action table to each dirty
/// record and calls the hooks, one record after the other.
///
/// The defaults call Salesforce's REST API (``SingleRecordSyncUpTarget`` uses them all). A
/// custom target overrides what differs — another endpoint, extra headers, a soft delete — and
/// keeps the rest, including the outcomes: a 404 on a delete deletes locally, a 404 on an update
/// recreates the record in OVERWRITE mode, a 412 leaves it dirty, any other failure keeps it
/// dirty with the body in `__last_error__`, and an answer that did not come from the API (a
/// gateway's 504, see ``SyncUpResponse/outcomeIsUnknown``) keeps a create's attempt for the
/// next run to reconcile.
///
/// <!-- snippet: Snippets/MobileSyncReference.swift#recordTarget -->
/// ```swift
/// struct ArchivingTarget: RecordSyncUpTarget {
///     // json, idFieldName, …
///     func deleteOnServer(objectType: String, id: String, client: RestClient) async throws -> SyncUpResponse {
///         try await updateOnServer(objectType: objectType, id: id, fields: ["Archived__c": true], ifUnmodifiedSince: nil, client: client)
///     }
/// }
/// ```
public protocol RecordSyncUpTarget: SoupSyncUpTarget {
    /// The fields sent on create; nil: the sync options' field list.
    var createFieldlist: [String]? { get }
    /// The fields sent on update; nil: the sync options' field list.
    var updateFieldlist: [String]? { get }
    /// A field holding an external id: a locally created record with a real value there is
    /// upserted by it instead of created.
    var externalIdFieldName: String? { get }

    /// LEAVE_IF_CHANGED only, for records updated or deleted locally: whether the local change
    /// may go to the server. false leaves the record dirty, without an error.
    func isNewerThanServer(_ record: JSONValue, client: RestClient) async throws -> Bool
    /// Creates a record; the answer's body carries the new `id`.
    func createOnServer(objectType: String, fields: [String: JSONValue], client: RestClient) async throws -> SyncUpResponse
    /// Creates or updates the record whose `externalIdField` is `externalId`; the body carries its `id`.
    func upsertOnServer(objectType: String, externalIdField: String, externalId: String, fields: [String: JSONValue], client: RestClient)
        async throws -> SyncUpResponse
    /// Updates a record. `ifUnmodifiedSince` (epoch ms, LEAVE_IF_CHANGED) asks the server to
    /// refuse with 412 when the record changed after it.
    func updateOnServer(objectType: String, id: String, fields: [String: JSONValue], ifUnmodifiedSince: Int64?, client: RestClient)
        async throws -> SyncUpResponse
    /// Deletes a record.
    func deleteOnServer(objectType: String, id: String, client: RestClient) async throws -> SyncUpResponse
}

extension RecordSyncUpTarget {
    /// The field list for creates, kept in the create attempt that recognises a lost create.
    public func createFields(options: SyncOptions) -> [String]? { createFieldlist ?? options.fieldlist }
    /// The field list for updates, compared with the server's version after the write.
    public func updateFields(options: SyncOptions) -> [String]? { updateFieldlist ?? options.fieldlist }

    /// Updates: true without a request, since they are sent with `If-Unmodified-Since` and the
    /// server makes the same check atomically. Deletes (which take no condition): reads the
    /// server's modification date; true unless it is after the record's local one (a record
    /// deleted on the server too: true, and the delete's 404 deletes it locally).
    public func isNewerThanServer(_ record: JSONValue, client: RestClient) async throws -> Bool {
        let local = SyncUpRecord(record: record, idFieldName: idFieldName, modificationDateFieldName: modificationDateFieldName)
        guard local.action == .delete, let id = local.id else { return true }
        let server: JSONValue
        do {
            server = try await client.retrieve(local.objectType ?? "null", id: id, fields: [modificationDateFieldName])
        } catch RestError.http(404, _, _) {
            return true
        }
        guard let date = server[modificationDateFieldName]?.stringValue.flatMap(SalesforceTime.parse), let mine = local.lastModified
        else { return true }
        return mine >= date
    }

    /// `POST /sobjects/{objectType}`.
    public func createOnServer(objectType: String, fields: [String: JSONValue], client: RestClient) async throws -> SyncUpResponse {
        try await Self.answer {
            SyncUpResponse(status: 201, body: ["id": .string(try await client.create(objectType, fields: .object(fields)))])
        }
    }

    /// `PATCH /sobjects/{objectType}/{externalIdField}/{externalId}`.
    public func upsertOnServer(
        objectType: String, externalIdField: String, externalId: String, fields: [String: JSONValue], client: RestClient
    ) async throws -> SyncUpResponse {
        try await Self.answer {
            let (id, created) = try await client.upsert(
                objectType, externalIdField: externalIdField, externalId: externalId, fields: .object(fields))
            return SyncUpResponse(status: created ? 201 : 200, body: ["id": .string(id)])
        }
    }

    /// `PATCH /sobjects/{objectType}/{id}`, with `If-Unmodified-Since` when asked.
    public func updateOnServer(
        objectType: String, id: String, fields: [String: JSONValue], ifUnmodifiedSince: Int64?, client: RestClient
    ) async throws -> SyncUpResponse {
        try await Self.answer {
            try await client.update(objectType, id: id, fields: .object(fields), ifUnmodifiedSince: ifUnmodifiedSince)
            return SyncUpResponse(status: 204)
        }
    }

    /// `DELETE /sobjects/{objectType}/{id}`.
    public func deleteOnServer(objectType: String, id: String, client: RestClient) async throws -> SyncUpResponse {
        try await Self.answer {
            try await client.delete(objectType, id: id)
            return SyncUpResponse(status: 204)
        }
    }

    /// Runs the SDK's action table over the records, through the hooks, one record at a time.
    public func send(_ records: [JSONValue], options: SyncOptions, client: RestClient) async throws -> [SyncUpOutcome] {
        try await RecordActions(
            idFieldName: idFieldName, modificationDateFieldName: modificationDateFieldName, createFieldlist: createFieldlist,
            updateFieldlist: updateFieldlist, externalIdFieldName: externalIdFieldName
        ).outcomes(
            records, options: options, isNewerThanServer: { try await isNewerThanServer($0, client: client) },
            send: { changes in
                var answers: [SyncUpResponse] = []
                for change in changes { answers.append(try await send(change, client: client)) }
                return answers
            })
    }

    private func send(_ change: RecordChange, client: RestClient) async throws -> SyncUpResponse {
        switch change.kind {
        case .create: try await createOnServer(objectType: change.objectType, fields: change.fields, client: client)
        case .upsert(let field, let value):
            try await upsertOnServer(
                objectType: change.objectType, externalIdField: field, externalId: value, fields: change.fields, client: client)
        case .update:
            try await updateOnServer(
                objectType: change.objectType, id: change.id ?? "", fields: change.fields, ifUnmodifiedSince: change.unmodifiedSince,
                client: client)
        case .delete: try await deleteOnServer(objectType: change.objectType, id: change.id ?? "", client: client)
        }
    }

    /// A server refusal as an answer (a body that is not JSON, such as a gateway's page, as
    /// null: ``SyncUpResponse/outcomeIsUnknown`` tells the two apart); network failures still
    /// throw (they fail the sync).
    private static func answer(_ call: () async throws -> SyncUpResponse) async throws -> SyncUpResponse {
        do {
            return try await call()
        } catch RestError.http(let status, _, let body) {
            return SyncUpResponse(status: status, body: (try? JSONValue(parsing: body)) ?? .null)
        }
    }
}

/// The JSON of a record target: its type, id and date fields, and the optional field lists.
func recordTargetJSON(
    type: String, _ target: some SyncUpTarget, createFieldlist: [String]?, updateFieldlist: [String]?, externalIdFieldName: String?
) -> JSONValue {
    var json: [String: JSONValue] = [
        "type": .string(type), "idFieldName": .string(target.idFieldName),
        "modificationDateFieldName": .string(target.modificationDateFieldName),
    ]
    if let list = createFieldlist { json["createFieldlist"] = .array(list.map(JSONValue.string)) }
    if let list = updateFieldlist { json["updateFieldlist"] = .array(list.map(JSONValue.string)) }
    if let field = externalIdFieldName { json["externalIdFieldName"] = .string(field) }
    return .object(json)
}
