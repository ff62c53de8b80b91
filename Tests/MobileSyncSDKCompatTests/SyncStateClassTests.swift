import FastJSON
import Foundation
import MobileSyncSDKCompat
import SalesforceREST
import Testing

/// The SDK's `SyncState` class: read, changed, saved back, as a dictionary and from one. This
/// file imports the module alone, as an SDK app does: `SyncState` is the class here.
@Suite struct SyncStateClassTests {
    static func manager() throws -> SyncManager {
        let store = try SmartStore()
        try store.registerSoup("accounts", indexSpecs: [IndexSpec("Id", .string)])
        let client = RestClient(instanceURL: URL(fileURLWithPath: "/unused"), tokenProvider: StaticAccessToken("unused"))
        return try SyncManager(store: store, client: client)
    }

    @Test func aStateIsReadChangedAndSavedBack() async throws {
        let manager = try Self.manager()
        let target = try SoqlSyncDownTarget(query: "SELECT Id, Name, LastModifiedDate FROM Account")
        let created: MobileSync.SyncState = try await manager.createSyncDown(
            target: target, options: SyncOptions(mergeMode: .leaveIfChanged), soupName: "accounts", name: "accounts")
        let sync = try #require(SyncState.byName("accounts", store: manager.store))
        #expect(sync.syncId == Int(created.id) && sync.name == "accounts" && sync.type == .down && sync.soupName == "accounts")
        #expect(sync.status == .new && sync.mergeMode == .leaveIfChanged && sync.totalSize == -1 && sync.maxTimeStamp == -1)
        #expect(!sync.isDone() && !sync.isRunning() && sync.syncDownTarget is SoqlSyncDownTarget)

        // The status setter records the times, as the SDK's.
        sync.status = .running
        #expect(sync.startTime > 0 && sync.endTime == 0 && sync.isRunning())
        sync.progress = 100
        sync.status = .done
        #expect(sync.endTime >= sync.startTime && sync.isDone())
        #expect(sync.save(manager.store))
        let again = try #require(manager.syncStatus(forId: NSNumber(value: sync.syncId)))
        #expect(again.status == .done && again.progress == 100 && again.startTime == sync.startTime)
        #expect(SyncState.getSyncsWithStatus(manager.store, status: .done).map(\.syncId) == [sync.syncId])

        // Through the SDK's dictionary and back.
        let dict = sync.asDict()
        #expect(
            dict["status"] as? String == "DONE" && dict["soupName"] as? String == "accounts" && dict["_soupEntryId"] as? Int == sync.syncId)
        let built = try #require(SyncState.build(dict: dict))
        #expect(built.syncId == sync.syncId && built.status == .done && built.name == "accounts")
        #expect(SyncState.build(dict: ["status": "DONE"]) == nil)

        // The SDK's string helpers.
        #expect(SyncState.syncStatus(toString: .running) == "RUNNING" && SyncState.syncStatus(from: "FAILED") == .failed)
        #expect(SyncState.syncStatus(from: nil) == .new && SyncState.syncType(toString: .up) == "syncUp")
        #expect(SyncState.mergeMode(toString: .leaveIfChanged) == "LEAVE_IF_CHANGED" && SyncState.mergeMode(from: "x") == .overwrite)

        // A copy read before another save is stale: its save writes nothing.
        let stale = try #require(SyncState.byName("accounts", store: manager.store))
        again.progress = 42
        #expect(again.save(manager.store))
        stale.error = "stale copy"
        #expect(!stale.save(manager.store))
        #expect(SyncState.byName("accounts", store: manager.store)?.progress == 42)
        #expect(SyncState.byName("accounts", store: manager.store)?.error == "")
        #expect(again.save(manager.store)) // saved last, it may save again

        SyncState.delete(syncName: "accounts", store: manager.store)
        #expect(SyncState.byId(NSNumber(value: sync.syncId), store: manager.store) == nil && !manager.hasSync(forName: "accounts"))
    }

    /// A stopped manager refuses the SDK's optional forms quietly: nil, nothing saved.
    @Test func theOptionalFormsAnswerNil() throws {
        let manager = try Self.manager()
        let created = try #require(
            manager.createSyncDown(
                MetadataSyncDownTarget(objectType: "Account"), options: .newSyncOptions(forSyncDown: .overwrite), soupName: "accounts",
                syncName: "describe"))
        #expect(created.status == .new && created.type == .down && manager.hasSync(forName: "describe"))
        #expect(
            manager.createSyncDown(
                MetadataSyncDownTarget(objectType: "Account"), options: SyncOptions(), soupName: "accounts", syncName: "describe")
                == nil)
        #expect(manager.createSyncUp(CollectionSyncUpTarget(), options: SyncOptions(), soupName: "nope", syncName: nil) == nil)
        try manager.checkAcceptingSyncs()
        manager.stop()
        #expect(throws: SyncError.managerStopped("STOPPED")) { try manager.checkAcceptingSyncs() }
        let target = try SoqlSyncDownTarget(query: "SELECT Id, LastModifiedDate FROM Account")
        #expect(manager.syncDown(target: target, soupName: "accounts") { _ in } == nil)
        #expect(manager.syncUp(options: SyncOptions(fieldlist: ["Name"]), soupName: "accounts") { _ in } == nil)
        #expect(SyncState.getSyncsWithStatus(manager.store, status: .new).map(\.name) == ["describe"])
    }
}
