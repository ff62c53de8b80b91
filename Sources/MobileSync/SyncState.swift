public import FastJSON
import SmartStore

/// A sync's persisted state: the SDK's `syncs_soup` document, with the same keys and statuses.
public struct SyncState: Sendable, Equatable {
    /// Sync down or sync up (`type` in the document: `syncDown`, `syncUp`).
    public enum Kind: String, Sendable { case syncDown, syncUp }
    /// The SDK's statuses.
    public enum Status: String, Sendable {
        /// Created, never run.
        case new = "NEW"
        /// The last run was stopped (``SyncManager/stop()`` or task cancellation); `reSync(id:onUpdate:)` resumes it.
        case stopped = "STOPPED"
        /// Running now.
        case running = "RUNNING"
        /// Waiting for another process's sync of one of its soups to end (not an SDK status:
        /// see ``SyncManager/OtherProcessPolicy``).
        case waiting = "WAITING"
        /// The last run finished.
        case done = "DONE"
        /// The last run failed; ``SyncState/error`` says why.
        case failed = "FAILED"
    }

    /// The sync's id (`_soupEntryId` of its document).
    public internal(set) var id: Int64
    /// Sync down or sync up.
    public var kind: Kind
    /// The sync's name, unique in the store, or nil.
    public var name: String?
    /// The target as JSON (`{"type":"soql","query":…}`, …).
    public var target: JSONValue
    /// The merge mode and the field list.
    public var options: SyncOptions
    /// The soup the sync reads or writes (the parents' soup for parent/children targets).
    public var soupName: String
    /// NEW, RUNNING (after WAITING, while another process syncs its soup), then DONE, FAILED or STOPPED.
    public var status: Status
    /// 0…100.
    public var progress: Int
    /// Records to sync, or -1 before it is known.
    public var totalSize: Int
    /// Latest modification date seen (epoch ms), -1 before the first sync.
    public var maxTimeStamp: Int64
    /// When the last run started (epoch ms), 0 before the first run.
    public var startTime: Int64
    /// When the last run ended (epoch ms), 0 before the first run ends.
    public var endTime: Int64
    /// Why the last run FAILED (empty otherwise).
    public var error: String
    /// Records whose sync up failed in the last run (the SDK only leaves `__last_error__` on them).
    public var failedRecordCount: Int
    /// Records the last run left alone because they changed on both sides (``SyncConflict``):
    /// not sent, or not merged, until resolved. Not counted in ``failedRecordCount``. A
    /// parent/children sync up counts the records of a tree it did not send because one of
    /// them is in conflict.
    public var conflictCount: Int = 0
    /// Pages received in the last run (sync downs).
    public var pagesFetched: Int = 0
    /// Records received in the last run (sync downs).
    public var recordsFetched: Int = 0
    /// Local records the last run deleted because the server no longer has them (paging targets delete as they page).
    public var recordsDeleted: Int = 0
    /// A live sync's state (its status, the last change event applied); `nil` for a sync that
    /// never ran live. See ``SyncManager/startLiveSync(named:options:)``.
    public var live: LiveSyncInfo?

    /// Whether the last run finished (DONE; the SDK's `isDone`).
    public var isDone: Bool { status == .done }
    /// Whether the last run failed (FAILED; ``error`` says why).
    public var hasFailed: Bool { status == .failed }
    /// Whether the sync is running now (RUNNING).
    public var isRunning: Bool { status == .running }
    /// Whether the sync waits for another process's sync of one of its soups (WAITING).
    public var isWaiting: Bool { status == .waiting }
    /// Whether the last run was stopped (STOPPED; a resync resumes it).
    public var isStopped: Bool { status == .stopped }

    /// The document stored in `syncs_soup`.
    package var document: JSONValue {
        var document: [String: JSONValue] = [
            "type": .string(kind.rawValue), "target": target, "options": options.json, "soupName": .string(soupName),
            "status": .string(status.rawValue), "progress": .int(Int64(progress)), "totalSize": .int(Int64(totalSize)),
            "maxTimeStamp": .int(maxTimeStamp), "startTime": .int(startTime), "endTime": .int(endTime), "error": .string(error),
            "failedRecordCount": .int(Int64(failedRecordCount)), "pagesFetched": .int(Int64(pagesFetched)),
            "recordsFetched": .int(Int64(recordsFetched)), "recordsDeleted": .int(Int64(recordsDeleted)),
            "conflictCount": .int(Int64(conflictCount)),
        ]
        if let name { document["name"] = .string(name) }
        if let live { document["live"] = live.json }
        if id > 0 { document["_soupEntryId"] = .int(id) }
        return .object(document)
    }

    package init(kind: Kind, name: String?, target: JSONValue, options: SyncOptions, soupName: String) {
        self.id = 0
        self.kind = kind
        self.name = name
        self.target = target
        self.options = options
        self.soupName = soupName
        self.status = .new
        self.progress = 0
        self.totalSize = -1
        self.maxTimeStamp = -1
        self.startTime = 0
        self.endTime = 0
        self.error = ""
        self.failedRecordCount = 0
    }

    /// Reads a stored document.
    package init(document: JSONValue) throws {
        guard let id = document["_soupEntryId"]?.int64Value, let kindName = document["type"]?.stringValue,
            let kind = Kind(rawValue: kindName),
            let soupName = document["soupName"]?.stringValue, let target = document["target"], target.objectValue != nil
        else {
            throw SyncError.invalidSyncState("sync document is incomplete: \(document.jsonString.prefix(200))")
        }
        self.id = id
        self.kind = kind
        self.name = document["name"]?.stringValue
        self.target = target
        self.options = try SyncOptions(json: document["options"] ?? [:])
        self.soupName = soupName
        self.status = document["status"]?.stringValue.flatMap(Status.init(rawValue:)) ?? .new
        self.progress = Int(clamping: document["progress"]?.int64Value ?? 0)
        self.totalSize = Int(clamping: document["totalSize"]?.int64Value ?? -1)
        self.maxTimeStamp = document["maxTimeStamp"]?.int64Value ?? -1
        self.startTime = document["startTime"]?.int64Value ?? 0
        // The SDK's Android reads endTime from startTime; we read the right key.
        self.endTime = document["endTime"]?.int64Value ?? 0
        self.error = document["error"]?.stringValue ?? ""
        self.failedRecordCount = Int(clamping: document["failedRecordCount"]?.int64Value ?? 0)
        self.pagesFetched = Int(clamping: document["pagesFetched"]?.int64Value ?? 0)
        self.recordsFetched = Int(clamping: document["recordsFetched"]?.int64Value ?? 0)
        self.recordsDeleted = Int(clamping: document["recordsDeleted"]?.int64Value ?? 0)
        self.conflictCount = Int(clamping: document["conflictCount"]?.int64Value ?? 0)
        self.live = document["live"].flatMap { $0.objectValue == nil ? nil : LiveSyncInfo(json: $0) }
    }

    /// Whether the sync is finished (DONE or FAILED) or stopped.
    public var isStoppedOrFinished: Bool { status == .done || status == .failed || status == .stopped }
}

/// Merge mode: what a sync does when a record changed on both sides.
public enum MergeMode: String, Sendable {
    /// The incoming side wins.
    case overwrite = "OVERWRITE"
    /// Records changed on the receiving side are left alone: a sync down keeps locally modified
    /// (`__local__`) records, a sync up leaves records changed on the server since dirty, as a
    /// ``SyncConflict``.
    case leaveIfChanged = "LEAVE_IF_CHANGED"
    /// Field by field, against the record's base (its state as last synced): a field changed on
    /// one side only takes that side's value, and only fields changed on both sides to
    /// different values are a ``SyncConflict``; a delete against a change, either way, is one
    /// too. A sync up sends only the fields changed locally. Not in the SDK.
    case mergeFields = "MERGE_FIELDS"

    /// Whether a sync leaves local changes alone (every mode but OVERWRITE).
    var keepsLocalChanges: Bool { self != .overwrite }
}

/// Options of a sync (`{"mergeMode": …, "fieldlist": […]}`).
public struct SyncOptions: Sendable, Equatable {
    /// OVERWRITE (the default), LEAVE_IF_CHANGED or MERGE_FIELDS.
    public var mergeMode: MergeMode
    /// Fields sent on sync up (when the target has no create/update lists).
    public var fieldlist: [String]?
    /// Whether the sync (a SOQL sync down) runs live when the manager starts its live syncs
    /// (``SyncManager/startLiveSyncs(options:)``); `"live": true` in `usersyncs.json`. Not in the SDK.
    public var live: Bool

    /// Options; the SDK's default is OVERWRITE with no field list.
    public init(mergeMode: MergeMode = .overwrite, fieldlist: [String]? = nil, live: Bool = false) {
        self.mergeMode = mergeMode
        self.fieldlist = fieldlist
        self.live = live
    }

    package init(json: JSONValue) throws {
        if let mode = json["mergeMode"]?.stringValue {
            guard let parsed = MergeMode(rawValue: mode) else { throw SyncError.invalidConfig("unknown mergeMode \(mode)") }
            mergeMode = parsed
        } else {
            mergeMode = .overwrite
        }
        fieldlist = json["fieldlist"]?.arrayValue?.compactMap(\.stringValue)
        if let live = json["live"], !live.isNull {
            guard let flag = live.boolValue else { throw SyncError.invalidConfig("\"live\" must be true or false") }
            self.live = flag
        } else {
            self.live = false
        }
    }

    package var json: JSONValue {
        var json: [String: JSONValue] = ["mergeMode": .string(mergeMode.rawValue)]
        if let fieldlist { json["fieldlist"] = .array(fieldlist.map(JSONValue.string)) }
        if live { json["live"] = true }
        return .object(json)
    }
}
