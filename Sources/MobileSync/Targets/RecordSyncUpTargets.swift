public import FastJSON
import Foundation
import SalesforceREST
import SalesforceWire

/// How a record-at-a-time target sends one change (single REST calls or composite subrequests).
struct RecordChange {
    enum Kind {
        case create
        case upsert(field: String, value: String)
        case update, delete
    }
    var kind: Kind
    var objectType: String
    var id: String?
    var fields: [String: JSONValue]
    /// For LEAVE_IF_CHANGED updates: refuse if the server record changed after this (ms).
    var unmodifiedSince: Int64?
}

/// Shared logic of the single-record and batch targets: per record, the SDK's action table,
/// with LEAVE_IF_CHANGED updates made conditional (`If-Unmodified-Since`) instead of the SDK's
/// read-then-write. Deletes cannot be conditional in the REST API: a LEAVE_IF_CHANGED delete
/// still reads the server date first, so a change landing in between is lost (documented).
protocol RecordAtATimeTarget: SyncUpTarget {
    var createFieldlist: [String]? { get }
    var updateFieldlist: [String]? { get }
    var externalIdFieldName: String? { get }
    /// Sends changes; returns per change the HTTP status and the body (JSON or null).
    func send(_ changes: [RecordChange], client: RestClient) async throws -> [(status: Int, body: JSONValue)]
}

extension RecordAtATimeTarget {
    public func createFields(options: SyncOptions) -> [String]? { createFieldlist ?? options.fieldlist }

    func fields(_ specific: [String]?, _ options: SyncOptions) throws -> [String] {
        guard let list = specific ?? options.fieldlist else { throw SyncError.invalidTarget("No fields specified") }
        return list
    }

    public func syncUp(_ records: [JSONValue], options: SyncOptions, client: RestClient) async throws -> [SyncUpOutcome] {
        let items = records.map { SyncUpRecord(record: $0, idFieldName: idFieldName, modificationDateFieldName: modificationDateFieldName) }
        var outcomes = [SyncUpOutcome?](repeating: nil, count: items.count)
        var changes: [(Int, RecordChange)] = []
        for (index, item) in items.enumerated() {
            let type = item.objectType ?? "null"
            switch item.action {
            case .none: outcomes[index] = .leftDirty(error: nil)
            case .deleteLocalOnly: outcomes[index] = .deleted
            case .delete:
                if options.mergeMode == .leaveIfChanged, let id = item.id {
                    let server = try? await client.retrieve(type, id: id, fields: [modificationDateFieldName])
                    if server == nil {
                        outcomes[index] = .deleted
                        continue
                    }
                    if let date = server?[modificationDateFieldName]?.stringValue.flatMap(SalesforceTime.parse),
                        let local = item.lastModified, date > local
                    {
                        outcomes[index] = .leftDirty(error: nil)
                        continue
                    }
                }
                changes.append((index, RecordChange(kind: .delete, objectType: type, id: item.id, fields: [:])))
            case .create:
                let body = item.fields(try fields(createFieldlist, options))
                if let field = externalIdFieldName, let value = item.record[field]?.stringValue, !value.isEmpty,
                    !LocalFields.isLocalId(value)
                {
                    changes.append(
                        (index, RecordChange(kind: .upsert(field: field, value: value), objectType: type, id: nil, fields: body)))
                } else {
                    changes.append((index, RecordChange(kind: .create, objectType: type, id: nil, fields: body)))
                }
            case .update:
                let since = options.mergeMode == .leaveIfChanged ? item.lastModified : nil
                changes.append(
                    (
                        index,
                        RecordChange(
                            kind: .update, objectType: type, id: item.id, fields: item.fields(try fields(updateFieldlist, options)),
                            unmodifiedSince: since)
                    ))
            }
        }
        let results = try await send(changes.map(\.1), client: client)
        var recreate: [(Int, RecordChange)] = []
        for ((index, change), result) in zip(changes, results) {
            let item = items[index]
            let errors = (result.body.arrayValue ?? []).compactMap(SalesforceErrorItem.init)
            switch (change.kind, result.status) {
            case (.delete, 200..<300), (.delete, 404):
                outcomes[index] = .deleted
            case (.update, 412):
                outcomes[index] = .leftDirty(error: nil) // changed on the server: LEAVE_IF_CHANGED
            case (.update, 404) where options.mergeMode == .overwrite:
                recreate.append(
                    (
                        index,
                        RecordChange(
                            kind: .create, objectType: change.objectType, id: nil,
                            fields: item.fields(try fields(createFieldlist ?? updateFieldlist, options)))
                    ))
            case (.update, 404):
                outcomes[index] = .leftDirty(error: nil)
            case (_, 200..<300):
                outcomes[index] = .synced(item.cleaned(id: result.body["id"]?.stringValue))
            default:
                outcomes[index] = .leftDirty(error: .array(errors.map(\.json)))
            }
        }
        if !recreate.isEmpty {
            for ((index, _), result) in zip(recreate, try await send(recreate.map(\.1), client: client)) {
                outcomes[index] =
                    (200..<300).contains(result.status)
                    ? .synced(items[index].cleaned(id: result.body["id"]?.stringValue))
                    : .leftDirty(error: .array((result.body.arrayValue ?? []).compactMap(SalesforceErrorItem.init).map(\.json)))
            }
        }
        return outcomes.map { $0 ?? .leftDirty(error: nil) }
    }
}

/// One REST call per record (the SDK's `SyncUpTarget`): slowest, and the baseline of the sync-up benchmark.
public struct SingleRecordSyncUpTarget: RecordAtATimeTarget {
    public var createFieldlist: [String]?
    public var updateFieldlist: [String]?
    public var externalIdFieldName: String?
    public var idFieldName: String
    public var modificationDateFieldName: String
    public var maxBatchSize: Int { 50 }

    public init(
        createFieldlist: [String]? = nil, updateFieldlist: [String]? = nil, externalIdFieldName: String? = nil,
        idFieldName: String = "Id", modificationDateFieldName: String = "LastModifiedDate"
    ) {
        self.createFieldlist = createFieldlist
        self.updateFieldlist = updateFieldlist
        self.externalIdFieldName = externalIdFieldName
        self.idFieldName = idFieldName
        self.modificationDateFieldName = modificationDateFieldName
    }

    init(json: JSONValue) {
        self.init(
            createFieldlist: json["createFieldlist"]?.arrayValue?.compactMap(\.stringValue),
            updateFieldlist: json["updateFieldlist"]?.arrayValue?.compactMap(\.stringValue),
            externalIdFieldName: json["externalIdFieldName"]?.stringValue, idFieldName: json["idFieldName"]?.stringValue ?? "Id",
            modificationDateFieldName: json["modificationDateFieldName"]?.stringValue ?? "LastModifiedDate")
    }

    public var json: JSONValue { recordTargetJSON(type: "single", self) }

    func send(_ changes: [RecordChange], client: RestClient) async throws -> [(status: Int, body: JSONValue)] {
        var results: [(status: Int, body: JSONValue)] = []
        for change in changes {
            do {
                switch change.kind {
                case .create:
                    results.append((201, ["id": .string(try await client.create(change.objectType, fields: .object(change.fields)))]))
                case .upsert(let field, let value):
                    let (id, _) = try await client.upsert(
                        change.objectType, externalIdField: field, externalId: value, fields: .object(change.fields))
                    results.append((200, ["id": .string(id)]))
                case .update:
                    try await client.update(
                        change.objectType, id: change.id ?? "", fields: .object(change.fields),
                        ifUnmodifiedSince: change.unmodifiedSince)
                    results.append((204, .null))
                case .delete:
                    try await client.delete(change.objectType, id: change.id ?? "")
                    results.append((204, .null))
                }
            } catch RestError.http(let status, _, let body) {
                results.append((status, (try? JSONValue(parsing: body)) ?? .null))
            }
        }
        return results
    }
}

/// Up to 25 records per `/composite` call (the SDK's `BatchSyncUpTarget`); conditional updates
/// carry `If-Unmodified-Since` in their subrequest headers.
public struct BatchSyncUpTarget: RecordAtATimeTarget {
    public var createFieldlist: [String]?
    public var updateFieldlist: [String]?
    public var externalIdFieldName: String?
    public var idFieldName: String
    public var modificationDateFieldName: String
    public var maxBatchSize: Int

    public init(
        createFieldlist: [String]? = nil, updateFieldlist: [String]? = nil, externalIdFieldName: String? = nil,
        idFieldName: String = "Id", modificationDateFieldName: String = "LastModifiedDate", maxBatchSize: Int = 25
    ) {
        self.createFieldlist = createFieldlist
        self.updateFieldlist = updateFieldlist
        self.externalIdFieldName = externalIdFieldName
        self.idFieldName = idFieldName
        self.modificationDateFieldName = modificationDateFieldName
        self.maxBatchSize = min(25, max(1, maxBatchSize))
    }

    init(json: JSONValue) {
        self.init(
            createFieldlist: json["createFieldlist"]?.arrayValue?.compactMap(\.stringValue),
            updateFieldlist: json["updateFieldlist"]?.arrayValue?.compactMap(\.stringValue),
            externalIdFieldName: json["externalIdFieldName"]?.stringValue, idFieldName: json["idFieldName"]?.stringValue ?? "Id",
            modificationDateFieldName: json["modificationDateFieldName"]?.stringValue ?? "LastModifiedDate",
            maxBatchSize: Int(json["maxBatchSize"]?.int64Value ?? 25))
    }

    public var json: JSONValue {
        guard case .object(var json) = recordTargetJSON(type: "batch", self) else { return .null }
        json["maxBatchSize"] = .int(Int64(maxBatchSize))
        return .object(json)
    }

    func send(_ changes: [RecordChange], client: RestClient) async throws -> [(status: Int, body: JSONValue)] {
        var results: [(status: Int, body: JSONValue)] = []
        for start in stride(from: 0, to: changes.count, by: 25) {
            let slice = Array(changes[start..<min(changes.count, start + 25)])
            let subrequests: [CompositeSubrequest] = slice.enumerated().map { offset, change in
                let base = "/services/data/v\(client.apiVersion)/sobjects/\(RestClient.encodeSegment(change.objectType))"
                let reference = "r\(offset)"
                switch change.kind {
                case .create:
                    return CompositeSubrequest(referenceId: reference, method: "POST", url: base, body: .object(change.fields))
                case .upsert(let field, let value):
                    let url = "\(base)/\(RestClient.encodeSegment(field))/\(RestClient.encodeSegment(value))"
                    return CompositeSubrequest(referenceId: reference, method: "PATCH", url: url, body: .object(change.fields))
                case .update:
                    var request = CompositeSubrequest(
                        referenceId: reference, method: "PATCH", url: "\(base)/\(change.id ?? "")", body: .object(change.fields))
                    request.unmodifiedSince = change.unmodifiedSince
                    return request
                case .delete:
                    return CompositeSubrequest(referenceId: reference, method: "DELETE", url: "\(base)/\(change.id ?? "")")
                }
            }
            let responses = try await client.composite(subrequests, allOrNone: false)
            let byReference = Dictionary(responses.map { ($0.referenceId, $0) }, uniquingKeysWith: { first, _ in first })
            for offset in slice.indices {
                // A subrequest the server did not answer counts as a server failure.
                let response = byReference["r\(offset)"]
                results.append((response?.httpStatusCode ?? 500, response?.body ?? .null))
            }
        }
        return results
    }
}

private func recordTargetJSON(type: String, _ target: some RecordAtATimeTarget) -> JSONValue {
    var json: [String: JSONValue] = [
        "type": .string(type), "idFieldName": .string(target.idFieldName),
        "modificationDateFieldName": .string(target.modificationDateFieldName),
    ]
    if let list = target.createFieldlist { json["createFieldlist"] = .array(list.map(JSONValue.string)) }
    if let list = target.updateFieldlist { json["updateFieldlist"] = .array(list.map(JSONValue.string)) }
    if let field = target.externalIdFieldName { json["externalIdFieldName"] = .string(field) }
    return .object(json)
}
