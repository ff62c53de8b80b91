public import FastJSON
import Foundation
public import SalesforceREST
import SalesforceWire

/// Up to 25 records per `/composite` call (the SDK's `BatchSyncUpTarget`); conditional updates
/// carry `If-Unmodified-Since` in their subrequest headers.
public struct BatchSyncUpTarget: SoupSyncUpTarget {
    /// The fields sent on create; nil: the sync options' field list.
    public var createFieldlist: [String]?
    /// The fields sent on update; nil: the sync options' field list.
    public var updateFieldlist: [String]?
    /// A field holding an external id: a record created locally with a real value there is upserted by it.
    public var externalIdFieldName: String?
    /// The field holding a record's server id (`Id`).
    public var idFieldName: String
    /// The field holding the record's modification date as synced down, compared in LEAVE_IF_CHANGED mode.
    public var modificationDateFieldName: String
    /// Records per `/composite` request (1…25).
    public var maxBatchSize: Int

    /// A batch target; `maxBatchSize` is clamped to 1…25.
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
            maxBatchSize: Int(clamping: json["maxBatchSize"]?.int64Value ?? 25))
    }

    /// `{"type": "batch", "maxBatchSize": N}` with the field lists and names (`iOSImpl: SFBatchSyncUpTarget` maps
    /// here).
    public var json: JSONValue {
        guard
            case .object(var json) = recordTargetJSON(
                type: "batch", self, createFieldlist: createFieldlist, updateFieldlist: updateFieldlist,
                externalIdFieldName: externalIdFieldName)
        else { return .null }
        json["maxBatchSize"] = .int(Int64(maxBatchSize))
        return .object(json)
    }

    /// The createFieldlist, else the options' field list.
    public func createFields(options: SyncOptions) -> [String]? { createFieldlist ?? options.fieldlist }
    /// The update field list, else the options' field list.
    public func updateFields(options: SyncOptions) -> [String]? { updateFieldlist ?? options.fieldlist }

    /// Runs the SDK's action table over the records; the changes go up in `/composite` calls of
    /// ``maxBatchSize``.
    public func send(_ records: [JSONValue], options: SyncOptions, client: RestClient) async throws -> [SyncUpOutcome] {
        let reader = SingleRecordSyncUpTarget(idFieldName: idFieldName, modificationDateFieldName: modificationDateFieldName)
        return try await RecordActions(
            idFieldName: idFieldName, modificationDateFieldName: modificationDateFieldName, createFieldlist: createFieldlist,
            updateFieldlist: updateFieldlist, externalIdFieldName: externalIdFieldName
        ).outcomes(
            records, options: options, isNewerThanServer: { try await reader.isNewerThanServer($0, client: client) },
            send: { try await send($0, client: client) })
    }

    private func send(_ changes: [RecordChange], client: RestClient) async throws -> [SyncUpResponse] {
        var results: [SyncUpResponse] = []
        for start in stride(from: 0, to: changes.count, by: maxBatchSize) {
            let slice = Array(changes[start..<min(changes.count, start + maxBatchSize)])
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
                results.append(SyncUpResponse(status: response?.httpStatusCode ?? 500, body: response?.body ?? .null))
            }
        }
        return results
    }
}
