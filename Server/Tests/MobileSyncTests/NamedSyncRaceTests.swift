import FastJSON
import Foundation
import SalesforceREST
import SmartStore
import Testing

@testable import MobileSync

/// Processes that create the same named sync at once make it once (issue 47's eighth finding):
/// the name is checked in the transaction that saves the state.
@Suite struct NamedSyncRaceTests {
    /// Another process (a second store on the file) saves a sync named `up` and holds its write
    /// transaction while this one creates `up`, directly or from a config. Checked before the
    /// write, this one saw no `up` and saved a second one after the other committed. From a
    /// config, the name is reported skipped, as one that existed before.
    @Test(arguments: [false, true])
    func aNameSavedByAnotherProcessMeanwhileIsADuplicate(fromConfig: Bool) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("named-race-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("store.sqlite").path
        let store = try SmartStore(path: path)
        try store.registerSoup("accounts", indexSpecs: [IndexSpec("Id", .string)])
        let client = RestClient(instanceURL: URL(string: "http://127.0.0.1:9")!, tokenProvider: StaticAccessToken("unused"))
        let manager = try SyncManager(store: store, client: client)
        let other = try SmartStore(path: path)
        let theirs = SyncState(
            kind: .syncUp, name: "up", target: CollectionSyncUpTarget().json, options: SyncOptions(), soupName: "accounts")
        let holding = AsyncStream<Void>.makeStream()
        let otherProcess = Thread {
            _ = try? other.inTransaction { tx in
                _ = try tx.upsert([theirs.document], in: SyncManager.soupName)
                holding.continuation.yield()
                Thread.sleep(forTimeInterval: 0.5) // this process creates `up` meanwhile
            }
        }
        otherProcess.start()
        for await _ in holding.stream { break }
        if fromConfig {
            let config = try SyncsConfig(
                data: Data(
                    #"{"syncs": [{"syncName": "up", "syncType": "syncUp", "soupName": "accounts", "target": {}, "options": {}}]}"#.utf8))
            let report = try await manager.apply(config)
            #expect(report.skipped == ["up"] && report.created.isEmpty && report.errors.isEmpty, "\(report)")
        } else {
            await #expect(throws: SyncError.duplicateName("up")) {
                _ = try await manager.createSyncUp(target: CollectionSyncUpTarget(), soupName: "accounts", name: "up")
            }
        }
        #expect(try SyncManager.syncStates(in: store).filter { $0.name == "up" }.count == 1)
    }
}
