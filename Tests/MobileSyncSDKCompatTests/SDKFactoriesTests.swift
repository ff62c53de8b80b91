import FastJSON
import Foundation
import MobileSyncSDKCompat
import Testing

/// The SDK's factories of options and targets.
@Suite struct SDKFactoriesTests {
    @Test func optionsAsTheSDKMakesThem() throws {
        let down = SyncOptions.newSyncOptions(forSyncDown: .leaveIfChanged)
        #expect(down.mergeMode == .leaveIfChanged && down.fieldlist == nil)
        let up = SyncOptions.newSyncOptions(forSyncUp: ["Name", 7, "Industry"], mergeMode: .overwrite)
        #expect(up.fieldlist == ["Name", "Industry"] && up.mergeMode == .overwrite)
        let dict = up.asDict()
        #expect(dict["mergeMode"] as? String == "OVERWRITE" && dict["fieldlist"] as? [String] == ["Name", "Industry"])
        #expect(SyncOptions.new(fromDict: dict) == up)
        #expect(SyncOptions.new(fromDict: ["mergeMode": "SOMETIMES"]) == nil)
        #expect(SyncOptions.newSyncOptions(forSyncUp: ["Name"]).mergeMode == .overwrite)
    }

    @Test func targetsAsTheSDKMakesThem() throws {
        let soql = SoqlSyncDownTarget.newSyncTarget("SELECT Id, Name, LastModifiedDate FROM Account", maxBatchSize: 500)
        #expect((soql as? SoqlSyncDownTarget)?.maxBatchSize == 500)
        #expect(SoslSyncDownTarget.newSyncTarget("FIND {Acme}").query == "FIND {Acme}")
        #expect(MruSyncDownTarget.newSyncTarget("Account", fieldlist: ["Name", 1]).fieldlist == ["Name"])
        #expect(RefreshSyncDownTarget.newSyncTarget("accounts", objectType: "Account", fieldlist: ["Name"]).soupName == "accounts")
        #expect(MetadataSyncDownTarget.newSyncTarget("Account").objectType == "Account")
        let layout = LayoutSyncDownTarget.newSyncTarget("Account", formFactor: nil, layoutType: "Compact", mode: nil, recordTypeId: nil)
        #expect(layout.layoutType == "Compact")
        #expect(BatchSyncUpTarget(createFieldlist: nil, updateFieldlist: nil, maxBatchSize: nil).maxBatchSize == 25)
        #expect(
            CollectionSyncUpTarget(createFieldlist: ["Name"], updateFieldlist: nil, maxBatchSize: NSNumber(value: 50)).maxBatchSize == 50)
    }

    /// An invalid query does not fail the factory: the sync fails when it runs, with the reason,
    /// as the SDK's does when the server refuses the query.
    @Test func anInvalidQueryFailsTheSync() async throws {
        let manager = try SyncStateClassTests.manager()
        let target = SoqlSyncDownTarget.newSyncTarget("SELECT COUNT() FROM Account")
        #expect(!(target is SoqlSyncDownTarget))
        let sync = try await manager.syncDown(target: target, soupName: "accounts", name: "bad")
        #expect(sync.status == .failed && sync.error.contains("COUNT()"))
        #expect(manager.syncStatus(forName: "bad")?.hasFailed() == true)
    }
}
