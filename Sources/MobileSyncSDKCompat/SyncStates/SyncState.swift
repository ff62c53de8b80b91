import FastJSON
public import Foundation
import Locking
public import MobileSync
public import SmartStore

/// The SDK's `SyncState` (`SFSyncState`): a class an app can hold, change and save back, over
/// MobileSync's `SyncState` value (``state``), with the SDK's names and types.
///
/// In a file that imports this module, `SyncState` is this class; MobileSync's value is
/// `MobileSync.SyncState` there (what the `async` calls of `SyncManager` return). Its
/// properties are read and written under a lock, so an instance may be shared between threads.
///
/// <!-- snippet: Snippets/MobileSyncSDKCompatReference.swift#syncStateClass -->
/// ```swift
/// if let sync = SyncState.byName("syncDownAccounts", store: store), sync.isDone() {
///     print(sync.syncId, SyncState.syncStatus(toString: sync.status), sync.asDict())
/// }
/// ```
public final class SyncState: Sendable, CustomStringConvertible {
    private let value: Locked<MobileSync.SyncState>
    /// The state as it was read, or last saved: `save(_:)` writes only over that.
    private let read: Locked<MobileSync.SyncState>

    /// A state over MobileSync's value, taken as what the store holds.
    public init(_ state: MobileSync.SyncState) {
        value = Locked(state)
        read = Locked(state)
    }

    /// The state as MobileSync's value.
    public var state: MobileSync.SyncState { value.withLock { $0 } }

    /// The sync's id (`_soupEntryId` of its document).
    public var syncId: Int { Int(truncatingIfNeeded: state.id) }
    /// The sync's name; empty for a sync without one (as the SDK's Swift sees it).
    public var name: String { state.name ?? "" }
    /// Sync down or sync up.
    public var type: SyncType { SyncType(state.kind) }
    /// The soup the sync reads or writes.
    public var soupName: String { state.soupName }
    /// The merge mode and the field list.
    public var options: SyncOptions { state.options }

    /// The status. Setting RUNNING records the start time, and setting DONE or FAILED after
    /// RUNNING the end time, as the SDK's setter does.
    public var status: SyncStatus {
        get { SyncStatus(state.status) }
        set {
            value.withLock { state in
                let now = Int64(Date().timeIntervalSince1970 * 1000)
                if newValue == .running && state.status != .running { state.startTime = now }
                if state.status == .running && (newValue == .done || newValue == .failed) { state.endTime = now }
                state.status = newValue.status
            }
        }
    }

    /// Progress, 0…100.
    public var progress: Int {
        get { state.progress }
        set { value.withLock { $0.progress = newValue } }
    }

    /// Records to sync, or -1 before it is known.
    public var totalSize: Int {
        get { state.totalSize }
        set { value.withLock { $0.totalSize = newValue } }
    }

    /// The merge mode of the options (setting it changes the options; the SDK's setter has no effect).
    public var mergeMode: SyncMergeMode {
        get { SyncMergeMode(state.options.mergeMode) }
        set { value.withLock { $0.options.mergeMode = newValue.mergeMode } }
    }

    /// The latest modification date seen (epoch ms), -1 before the first sync down.
    public var maxTimeStamp: Int64 {
        get { state.maxTimeStamp }
        set { value.withLock { $0.maxTimeStamp = newValue } }
    }

    /// When the last run started (epoch ms), 0 before the first run.
    public var startTime: Int { Int(truncatingIfNeeded: state.startTime) }
    /// When the last run ended (epoch ms), 0 before the first run ends.
    public var endTime: Int { Int(truncatingIfNeeded: state.endTime) }

    /// Why the last run failed (empty otherwise).
    public var error: String {
        get { state.error }
        set { value.withLock { $0.error = newValue } }
    }

    /// Whether the last run finished.
    public func isDone() -> Bool { state.isDone }
    /// Whether the last run failed.
    public func hasFailed() -> Bool { state.hasFailed }
    /// Whether the sync is running (or waiting for another process's sync of its soup).
    public func isRunning() -> Bool { state.isRunning || state.isWaiting }
    /// Whether the last run was stopped.
    public func isStopped() -> Bool { state.isStopped }

    /// The state as the SDK's dictionary (the keys of its `syncs_soup` document).
    public func asDict() -> [AnyHashable: Any] { SmartStore.entry(state.document) }

    /// A state from the SDK's dictionary, or nil when it is not one (no id, type, soup or target).
    public static func build(dict: [AnyHashable: Any]) -> SyncState? {
        guard let json = try? FoundationBridge.json(dict), let state = try? MobileSync.SyncState(document: json) else { return nil }
        return SyncState(state)
    }

    /// Saves the state in `store`'s `syncs_soup`, as the SDK's `save(_:)`, unless the stored
    /// state changed since this one was read or last saved (a run of the sync, another process,
    /// another instance's save): then nothing is written, the refusal is logged and the answer
    /// is false. Read the state again to change it.
    @discardableResult
    public func save(_ store: SmartStore) -> Bool {
        let (state, read) = (self.state, self.read.withLock { $0 })
        do {
            let saved = try store.inTransaction { transaction -> Bool in
                let stored = try transaction.retrieve([state.id], from: SyncManager.soupName).first
                guard try stored.map(MobileSync.SyncState.init(document:)) == read else { return false }
                _ = try transaction.upsert([state.document], in: SyncManager.soupName)
                return true
            }
            guard saved else {
                SDKLog.error("SyncState \(syncId) not saved: the stored state changed since it was read")
                return false
            }
            self.read.withLock { $0 = state }
            return true
        } catch {
            SDKLog.error("SyncState \(syncId) not saved: \(error)")
            return false
        }
    }

    /// The sync with this id in `store`, or nil.
    public static func byId(_ syncId: NSNumber, store: SmartStore) -> SyncState? {
        let found = try? store.retrieve([syncId.int64Value], from: SyncManager.soupName).first
        return found.flatMap { try? MobileSync.SyncState(document: $0) }.map(SyncState.init)
    }

    /// The sync with this name in `store`, or nil.
    public static func byName(_ name: String, store: SmartStore) -> SyncState? {
        let found = try? store.query(.exact(soup: SyncManager.soupName, path: "name", key: .string(name), pageSize: 1)).first
        return found.flatMap { try? MobileSync.SyncState(document: $0) }.map(SyncState.init)
    }

    /// The syncs of `store` with this status, in id order.
    public static func getSyncsWithStatus(_ store: SmartStore, status: SyncStatus) -> [SyncState] {
        let all = (try? SyncManager.syncStates(in: store)) ?? []
        return all.filter { SyncStatus($0.status) == status }.map(SyncState.init)
    }

    /// Deletes the sync with this id from `store` (its records stay).
    public static func delete(syncId: NSNumber, store: SmartStore) {
        do { try store.delete([syncId.int64Value], from: SyncManager.soupName) } catch {
            SDKLog.error("Sync \(syncId) not deleted: \(error)")
        }
    }

    /// Deletes the sync with this name from `store` (its records stay).
    public static func delete(syncName: String, store: SmartStore) {
        if let sync = byName(syncName, store: store) { delete(syncId: NSNumber(value: sync.state.id), store: store) }
    }

    /// `"syncDown"` or `"syncUp"`.
    public static func syncType(toString syncType: SyncType) -> String { syncType.kind.rawValue }
    /// The type a string names; a sync up for anything but `"syncDown"`.
    public static func syncType(from syncType: String) -> SyncType { syncType == "syncDown" ? .down : .up }
    /// `"NEW"`, `"RUNNING"`, `"DONE"`, `"FAILED"` or `"STOPPED"`.
    public static func syncStatus(toString syncStatus: SyncStatus) -> String { syncStatus.status.rawValue }
    /// The status a string names; NEW for anything else.
    public static func syncStatus(from syncStatus: String?) -> SyncStatus {
        syncStatus.flatMap(MobileSync.SyncState.Status.init(rawValue:)).map(SyncStatus.init) ?? .new
    }
    /// `"OVERWRITE"` or `"LEAVE_IF_CHANGED"`.
    public static func mergeMode(toString mergeMode: SyncMergeMode) -> String { mergeMode.mergeMode.rawValue }
    /// The merge mode a string names; OVERWRITE for anything else.
    public static func mergeMode(from mergeMode: String) -> SyncMergeMode {
        MergeMode(rawValue: mergeMode).map(SyncMergeMode.init) ?? .overwrite
    }

    /// The state as the SDK prints it: its dictionary.
    public var description: String { state.document.jsonString }
}
