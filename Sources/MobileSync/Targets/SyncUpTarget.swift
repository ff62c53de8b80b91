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
    /// Not synced: changed on the server too (LEAVE_IF_CHANGED, MERGE_FIELDS). The sync reads
    /// the server's version and records a ``SyncConflict``.
    case conflict(SyncConflict.Kind)
}

/// Where a sync up sends dirty records, and how. Targets are values, persisted as JSON in the
/// sync state; register custom types with ``SyncTargetRegistry``.
///
/// Most targets send the records of one soup in batches: adopt ``BatchedSyncUpTarget``, which
/// runs the sync for you, or ``RecordSyncUpTarget`` for the SDK's per-record hooks. A target
/// that spans several soups (``ParentChildrenSyncUpTarget``) implements ``syncUp(_:context:)``
/// itself.
public protocol SyncUpTarget: Sendable {
    /// The target as JSON, with a `type` key (`collection`, …).
    var json: JSONValue { get }
    /// The field holding a record's server id (`Id`); a local id (`local_…`) before its create.
    var idFieldName: String { get }
    /// The field holding the record's modification date as last synced down, which LEAVE_IF_CHANGED compares with the server's.
    var modificationDateFieldName: String { get }

    /// Runs the sync up: sends what is dirty, writes the outcomes locally, and advances `sync`
    /// (``SyncState/totalSize``, progress, ``SyncState/failedRecordCount``, saved with
    /// ``SyncContext/save(_:)``). Per-record server errors belong in the record's
    /// `__last_error__`, not in a throw: throwing fails the whole sync, except
    /// ``SyncError/stopped``, which stops it.
    func syncUp(_ sync: inout SyncState, context: SyncContext) async throws

    /// The soups this target writes besides the sync's own (`[]` by default): runs that share a
    /// soup run one at a time, in the order they were submitted.
    var additionalSoupNames: [String] { get }

    /// The server's current version of records of one type, by id, with at least `fields`; ids
    /// the server does not have are absent. After each batch a sync up reads what it wrote, to
    /// learn the modification date its own write gave each record (see <doc:Guarantees>).
    ///
    /// The default reads them through sObject Collections' retrieve, 2,000 ids a request. A
    /// target whose server is not Salesforce's REST API overrides it, or returns `[:]` when it
    /// cannot tell (the records then keep the dates they had, as before the write).
    func serverRecords(_ objectType: String, ids: [String], fields: [String], client: RestClient) async throws -> [String: JSONValue]
}

extension SyncUpTarget {
    /// None: the target writes only the sync's soup.
    public var additionalSoupNames: [String] { [] }
}

/// A sync up target that sends the dirty records of the sync's soup in batches; the sync itself
/// comes with the protocol.
///
/// The sync it runs reads ``entryIdsToSyncUp(soupName:context:)``, then sends batches of
/// ``maxBatchSize`` through ``syncUp(_:options:client:)`` — one batch prepared while the previous
/// one is on the wire — and applies each outcome to the record as it is by then, so an edit made
/// during the sync is kept. Unless ``createsAreIdempotent``, each create is recorded in the record
/// before it is sent, so a create whose response was lost is recognised on the next sync up
/// instead of being sent twice.
public protocol BatchedSyncUpTarget: SyncUpTarget {
    /// Records per call to ``syncUp(_:options:client:)``.
    var maxBatchSize: Int { get }
    /// Sends a batch of dirty records; one outcome per record, in order.
    func syncUp(_ records: [JSONValue], options: SyncOptions, client: RestClient) async throws -> [SyncUpOutcome]
    /// Whether creates are idempotent (upserts by a client-generated key), so a lost response
    /// cannot lead to a duplicate and no reconciliation is needed.
    var createsAreIdempotent: Bool { get }
    /// The fields sent when creating (used to recognise a create whose response was lost).
    func createFields(options: SyncOptions) -> [String]?
    /// The fields sent when updating (used to recognise the server's version as the update's).
    func updateFields(options: SyncOptions) -> [String]?
    /// The entries to sync up, in the order to send them: the SDK's `getIdsOfRecordsToSyncUp`.
    /// The default is every dirty entry of the soup (``SyncContext/dirtyEntryIds(soup:)``); a
    /// target that syncs a chosen subset returns fewer. Entries returned that are not dirty
    /// are read and left alone.
    func entryIdsToSyncUp(soupName: String, context: SyncContext) async throws -> [Int64]
}

extension BatchedSyncUpTarget {
    /// Creates are plain creates: a lost response is reconciled on the next sync up.
    public var createsAreIdempotent: Bool { false }
    /// The options' field list.
    public func createFields(options: SyncOptions) -> [String]? { options.fieldlist }
    /// The options' field list.
    public func updateFields(options: SyncOptions) -> [String]? { options.fieldlist }
    /// Every dirty entry of the soup, in entry-id order.
    public func entryIdsToSyncUp(soupName: String, context: SyncContext) async throws -> [Int64] {
        try await context.dirtyEntryIds(soup: soupName)
    }
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

    private func flag(_ name: String) -> Bool { LocalFields.isSet(record[name]) }

    /// Delete wins over create, create over update (the SDK's order).
    var action: SyncUpAction {
        if flag(LocalFields.locallyDeleted) {
            // A record without a server id cannot be on the server: deleting it is local only.
            let serverId = id.map { !$0.isEmpty && !LocalFields.isLocalId($0) } ?? false
            return flag(LocalFields.locallyCreated) || !serverId ? .deleteLocalOnly : .delete
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
        copy[LocalFields.updateAttempt] = nil
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
