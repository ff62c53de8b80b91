import Foundation
import MobileSyncSDKCompat

#if canImport(Combine)
    import Combine
#endif

/// The SDK's SyncManager members, each spelled as an SDK app spells it (see `SDKMemberTableTests`).
extension SDKMemberTableTests {
    static var syncManager: [(member: String, use: Any)] {
        typealias Uses = (SyncManager) throws -> Void
        let target = MetadataSyncDownTarget(objectType: "Account")
        return [
            (
                "SyncManager.sharedInstance(store:)",
                { (s: SmartStore) in let _: SyncManager? = SyncManager.sharedInstance(store: s) } as (SmartStore) -> Void
            ),
            ("SyncManager.removeSharedInstance(_:)", { (u: UserAccount) in SyncManager.removeSharedInstance(u) } as (UserAccount) -> Void),
            (
                "SyncManager.removeSharedInstance(named:forUserAccount:)",
                { (u: UserAccount) in SyncManager.removeSharedInstance(named: "s", forUserAccount: u) } as (UserAccount) -> Void
            ),
            (
                "SyncManager.removeSharedInstance(store:)",
                { (s: SmartStore) in SyncManager.removeSharedInstance(store: s) } as (SmartStore) -> Void
            ),
            ("SyncManager.removeSharedInstances()", { SyncManager.removeSharedInstances() } as () -> Void),
            ("SyncManager.store", { m in let _: SmartStore = m.store } as Uses),
            ("SyncManager.stop()", { m in m.stop() } as Uses),
            ("SyncManager.isStopping()", { m in let _: Bool = m.isStopping() } as Uses),
            ("SyncManager.isStopped()", { m in let _: Bool = m.isStopped() } as Uses),
            ("SyncManager.restart(restartStoppedSyncs:onUpdate:)", { m in try m.restart(restartStoppedSyncs: true) { _ in } } as Uses),
            ("SyncManager.checkAcceptingSyncs()", { m in try m.checkAcceptingSyncs() } as Uses),
            ("SyncManager.syncStatus(forId:)", { m in let _: SyncState? = m.syncStatus(forId: 1) } as Uses),
            ("SyncManager.syncStatus(forName:)", { m in let _: SyncState? = m.syncStatus(forName: "s") } as Uses),
            ("SyncManager.hasSync(forName:)", { m in let _: Bool = m.hasSync(forName: "s") } as Uses),
            ("SyncManager.deleteSync(forId:)", { m in m.deleteSync(forId: 1) } as Uses),
            ("SyncManager.deleteSync(forName:)", { m in m.deleteSync(forName: "s") } as Uses),
            (
                "SyncManager.syncDown(target:soupName:onUpdate:)",
                { m in let _: SyncState? = m.syncDown(target: target, soupName: "a") { (_: SyncState) in } } as Uses
            ),
            (
                "SyncManager.syncDown(target:options:soupName:onUpdate:)",
                { m in
                    let _: SyncState? = m.syncDown(target: target, options: .newSyncOptions(forSyncDown: .overwrite), soupName: "a") { _ in
                    }
                } as Uses
            ),
            (
                "SyncManager.syncDown(target:options:soupName:syncName:onUpdate:)",
                { m in
                    let _: SyncState = try m.syncDown(target: target, options: SyncOptions(), soupName: "a", syncName: "s") { _ in }
                } as Uses
            ),
            ("SyncManager.reSync(id:onUpdate:)", { m in let _: SyncState = try m.reSync(id: 1) { _ in } } as Uses),
            ("SyncManager.reSync(named:onUpdate:)", { m in let _: SyncState = try m.reSync(named: "s") { _ in } } as Uses),
            (
                "SyncManager.syncUp(options:soupName:onUpdate:)",
                { m in
                    let _: SyncState? = m.syncUp(options: .newSyncOptions(forSyncUp: ["Name"]), soupName: "a") { _ in }
                } as Uses
            ),
            (
                "SyncManager.syncUp(target:options:soupName:onUpdate:)",
                { m in
                    let _: SyncState? = m.syncUp(target: CollectionSyncUpTarget(), options: SyncOptions(), soupName: "a") { _ in }
                } as Uses
            ),
            (
                "SyncManager.syncUp(target:options:soupName:syncName:onUpdate:)",
                { m in
                    let _: SyncState = try m.syncUp(target: BatchSyncUpTarget(), options: SyncOptions(), soupName: "a", syncName: "s") {
                        _ in
                    }
                } as Uses
            ),
            (
                "SyncManager.cleanResyncGhosts(forId:onComplete:)",
                { m in try m.cleanResyncGhosts(forId: 1) { (_: SyncStatus, _: UInt) in } } as Uses
            ),
            ("SyncManager.cleanResyncGhosts(forName:onComplete:)", { m in try m.cleanResyncGhosts(forName: "s") { _, _ in } } as Uses),
            (
                "SyncManager.reSyncWithoutUpdates(named:_:)",
                { m in m.reSyncWithoutUpdates(named: "s") { (_: Result<SyncState, MobileSyncError>) in } } as Uses
            ),
            ("SyncManager.cleanGhosts(named:_:)", { m in m.cleanGhosts(named: "s") { (_: Result<UInt, MobileSyncError>) in } } as Uses),
            ("SyncManager.publisher(for:)", { m in let _: Future<SyncState, MobileSyncError> = m.publisher(for: "s") } as Uses),
            (
                "SyncManager.cleanGhostsPublisher(for:)",
                { m in let _: Future<UInt, MobileSyncError> = m.cleanGhostsPublisher(for: "s") } as Uses
            ),
            (
                "MobileSyncError",
                {
                    let errors: [MobileSyncError] = [.notStarted(nil), .stopped, .failed(nil), .unknown]
                    _ = errors
                } as () -> Void
            ),
        ]
    }
}
