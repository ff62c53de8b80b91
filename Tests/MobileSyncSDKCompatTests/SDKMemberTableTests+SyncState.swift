import Foundation
import MobileSyncSDKCompat

#if canImport(Combine)
    import Combine
#endif

/// The SDK's SyncState members, each spelled as an SDK app spells it (see `SDKMemberTableTests`).
extension SDKMemberTableTests {
    static var syncState: [(member: String, use: Any)] {
        typealias Uses = (SyncState) -> Void
        return [
            ("SyncState.syncId", { s in let _: Int = s.syncId } as Uses),
            ("SyncState.name", { s in let _: String = s.name } as Uses),
            ("SyncState.type", { s in let _: SyncType = s.type } as Uses),
            ("SyncState.soupName", { s in let _: String = s.soupName } as Uses),
            ("SyncState.options", { s in let _: SyncOptions = s.options } as Uses),
            ("SyncState.status", { s in s.status = .running } as Uses),
            ("SyncState.progress", { s in s.progress = 50 } as Uses),
            ("SyncState.totalSize", { s in s.totalSize = 10 } as Uses),
            ("SyncState.mergeMode", { s in s.mergeMode = .leaveIfChanged } as Uses),
            ("SyncState.maxTimeStamp", { s in s.maxTimeStamp = 0 } as Uses),
            ("SyncState.startTime", { s in let _: Int = s.startTime } as Uses),
            ("SyncState.endTime", { s in let _: Int = s.endTime } as Uses),
            ("SyncState.error", { s in s.error = "" } as Uses),
            (
                "SyncState.byId(_:store:)",
                { (store: SmartStore) in let _: SyncState? = SyncState.byId(1, store: store) } as (SmartStore) -> Void
            ),
            (
                "SyncState.byName(_:store:)",
                { (store: SmartStore) in let _: SyncState? = SyncState.byName("s", store: store) } as (SmartStore) -> Void
            ),
            ("SyncState.save(_:)", { (s: SyncState, store: SmartStore) in s.save(store) } as (SyncState, SmartStore) -> Void),
            (
                "SyncState.delete(syncId:store:)",
                { (store: SmartStore) in SyncState.delete(syncId: 1, store: store) } as (SmartStore) -> Void
            ),
            (
                "SyncState.delete(syncName:store:)",
                { (store: SmartStore) in SyncState.delete(syncName: "s", store: store) } as (SmartStore) -> Void
            ),
            (
                "SyncState.getSyncsWithStatus(_:status:)",
                { (store: SmartStore) in let _: [SyncState] = SyncState.getSyncsWithStatus(store, status: .done) } as (SmartStore) -> Void
            ),
            ("SyncState.build(dict:)", { let _: SyncState? = SyncState.build(dict: [:]) } as () -> Void),
            ("SyncState.asDict()", { s in let _: [AnyHashable: Any] = s.asDict() } as Uses),
            ("SyncState.isDone()", { s in let _: Bool = s.isDone() } as Uses),
            ("SyncState.hasFailed()", { s in let _: Bool = s.hasFailed() } as Uses),
            ("SyncState.isRunning()", { s in let _: Bool = s.isRunning() } as Uses),
            ("SyncState.isStopped()", { s in let _: Bool = s.isStopped() } as Uses),
            ("SyncState.syncType(from:)", { let _: SyncType = SyncState.syncType(from: "syncDown") } as () -> Void),
            ("SyncState.syncType(toString:)", { let _: String = SyncState.syncType(toString: .up) } as () -> Void),
            ("SyncState.syncStatus(from:)", { let _: SyncStatus = SyncState.syncStatus(from: "DONE") } as () -> Void),
            ("SyncState.syncStatus(toString:)", { let _: String = SyncState.syncStatus(toString: .done) } as () -> Void),
            ("SyncState.mergeMode(from:)", { let _: SyncMergeMode = SyncState.mergeMode(from: "OVERWRITE") } as () -> Void),
            ("SyncState.mergeMode(toString:)", { let _: String = SyncState.mergeMode(toString: .overwrite) } as () -> Void),
        ]
    }
}
