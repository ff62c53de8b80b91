public import FastJSON
public import SalesforceREST
import SalesforceWire

/// What happened to one dirty record during a sync up.
public enum SyncUpOutcome: Sendable, Equatable {
    /// Saved on the server: the record as it should now be stored locally (server id, clean).
    case synced(JSONValue)
    /// Gone on both sides: delete the local entry.
    case deleted
    /// Not synced and still dirty; `error` (Salesforce errors as JSON) is stored in `__last_error__`.
    case leftDirty(error: JSONValue?)
}

/// Where a sync up sends dirty records.
public protocol SyncUpTarget: Sendable {
    var json: JSONValue { get }
    var idFieldName: String { get }
    var modificationDateFieldName: String { get }
    /// Records per call to ``syncUp(_:options:client:)``.
    var maxBatchSize: Int { get }
    /// Sends a batch of dirty records; one outcome per record, in order.
    func syncUp(_ records: [JSONValue], options: SyncOptions, client: RestClient) async throws -> [SyncUpOutcome]
    /// Whether creates are idempotent (upserts by a client-generated key), so a lost response
    /// cannot lead to a duplicate and no reconciliation is needed.
    var createsAreIdempotent: Bool { get }
    /// The fields sent when creating (used to recognise a create whose response was lost).
    func createFields(options: SyncOptions) -> [String]?
}

extension SyncUpTarget {
    public var createsAreIdempotent: Bool { false }
    public func createFields(options: SyncOptions) -> [String]? { options.fieldlist }
}

/// The action a dirty record asks for.
enum SyncUpAction: Equatable {
    case none, create, update, delete, deleteLocalOnly
}

/// Helpers shared by sync up targets: actions, field maps, local results.
struct SyncUpRecord {
    let record: JSONValue
    let idFieldName: String
    let modificationDateFieldName: String

    var id: String? { record[idFieldName]?.stringValue }
    var objectType: String? { record["attributes"]?["type"]?.stringValue }

    private func flag(_ name: String) -> Bool {
        switch record[name] {
        case .bool(let value)?: value
        case .int(let value)?: value != 0
        case .string(let value)?: value == "true" || value == "1"
        default: false
        }
    }

    /// Delete wins over create, create over update (the SDK's order).
    var action: SyncUpAction {
        if flag(LocalFields.locallyDeleted) {
            return flag(LocalFields.locallyCreated) || LocalFields.isLocalId(id) ? .deleteLocalOnly : .delete
        }
        if flag(LocalFields.locallyCreated) { return .create }
        if flag(LocalFields.locallyUpdated) { return .update }
        return .none
    }

    /// The fields to send: the listed ones present in the record (explicit nulls kept), never
    /// the id or modification date, never relationship paths.
    func fields(_ list: [String]) -> [String: JSONValue] {
        var fields: [String: JSONValue] = [:]
        for name in list where name != idFieldName && name != modificationDateFieldName && !name.contains(".") {
            if let value = record[name] { fields[name] = value }
        }
        return fields
    }

    /// The record cleaned after a successful sync up, with its (possibly new) server id.
    func cleaned(id newId: String?) -> JSONValue {
        var copy = record
        if let newId { copy[idFieldName] = .string(newId) }
        copy[LocalFields.local] = false
        copy[LocalFields.locallyCreated] = false
        copy[LocalFields.locallyUpdated] = false
        copy[LocalFields.locallyDeleted] = false
        copy[LocalFields.lastError] = nil
        copy[LocalFields.createAttempt] = nil
        return copy
    }

    /// Epoch ms of the record's local modification date (as last synced down), if any.
    var lastModified: Int64? { record[modificationDateFieldName]?.stringValue.flatMap(SalesforceTime.parse) }
}

extension SalesforceErrorItem {
    /// Whether the error means the record is gone on the server.
    var meansRecordDoesNotExist: Bool {
        code == "ENTITY_IS_DELETED" || code == "INVALID_CROSS_REFERENCE_KEY" || code == "NOT_FOUND"
    }
}
