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
    /// Sent, but the answer did not come from the API (see ``SyncUpResponse/outcomeIsUnknown``):
    /// the server may have done it. Still dirty, `error` in `__last_error__`, counted as failed,
    /// and its create attempt is kept, so the next sync up reconciles it as a lost response
    /// instead of creating it a second time.
    case outcomeUnknown(error: JSONValue)
    /// Not synced: changed on the server too (LEAVE_IF_CHANGED, MERGE_FIELDS). The sync reads
    /// the server's version and records a ``SyncConflict``.
    case conflict(SyncConflict.Kind)
}

/// Where a sync up sends dirty records, and how. Targets are values, persisted as JSON in the
/// sync state; register custom types with ``SyncTargetRegistry``.
///
/// Most targets send the records of one soup in batches: adopt ``SoupSyncUpTarget``, which
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
