import FastJSON
import Foundation
import LocalForceTesting
import SalesforceREST
import SmartStore
import Testing

@testable import MobileSync

/// A full round trip on an encrypted store, against LocalForce over HTTP: sync down, local
/// edits, sync up, server changes, resync, ghost cleanup, then the store reopened with its key.
@Suite struct EncryptedSyncTests {
    static let marker = "EncryptedSyncMarker"

    @Test func aFullRoundTripOnAnEncryptedStore() async throws {
        let folder = temporaryFolder("encrypted-sync")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("store.sqlite").path
        let key = StoreKey.passphrase("sync passphrase", kdfIterations: StoreKey.sdkKDFIterations)
        let org = try await TestOrg.start(transport: .http)
        let records: [JSONValue] = (0..<600).map { ["attributes": ["type": "Account"], "Name": .string("\(Self.marker) \($0)")] }
        var serverIds: [String] = []
        for start in stride(from: 0, to: records.count, by: 200) {
            serverIds += try await org.client.createRecords(Array(records[start..<start + 200])).compactMap(\.id)
        }

        do {
            let store = try SmartStore(path: path, key: key)
            try store.registerSoup(
                "accounts", indexSpecs: [IndexSpec("Id", .string), IndexSpec("Name", .fullText), IndexSpec("__local__", .string)])
            let manager = try SyncManager(store: store, client: org.client)
            let target = try SoqlSyncDownTarget(query: "SELECT Id, Name FROM Account", maxBatchSize: 200)
            #expect(try await manager.syncDown(target: target, soupName: "accounts", name: "down").isDone)

            for id in serverIds.prefix(10) {
                let entryId = try #require(try await store.lookupSoupEntryId(soup: "accounts", path: "Id", value: .string(id)))
                try await store.updateLocally(["Name": .string("\(Self.marker) edited")], entryId: entryId, in: "accounts")
            }
            for id in serverIds.suffix(5) {
                let entryId = try #require(try await store.lookupSoupEntryId(soup: "accounts", path: "Id", value: .string(id)))
                try await store.deleteLocally(entryId: entryId, in: "accounts")
            }
            for index in 0..<3 {
                _ = try await store.createLocally(["Name": .string("\(Self.marker) new \(index)")], objectType: "Account", in: "accounts")
            }
            let up = try await manager.syncUp(
                target: CollectionSyncUpTarget(), options: SyncOptions(fieldlist: ["Name"]), soupName: "accounts")
            #expect(up.isDone)

            // The server changes and loses records meanwhile.
            try await org.client.update("Account", id: serverIds[100], fields: ["Name": "Changed on the server"])
            for id in serverIds[200..<204] { try await org.client.delete("Account", id: id) }
            #expect(try await manager.reSync(named: "down").isDone)
            #expect(try await manager.cleanResyncGhosts(named: "down") == 4)
            try store.close()
        }

        let store = try SmartStore(path: path, key: key)
        let manager = try SyncManager(store: store, client: org.client)
        #expect(try await manager.syncStatus(named: "down")?.isDone == true)
        let onServer = try await org.client.records(from: try await org.client.query("SELECT Id, Name FROM Account"))
        let local = try await store.query(.smart("select {accounts:Id}, {accounts:Name} from {accounts}", pageSize: 1000))
        #expect(local.count == 594 && onServer.count == 594)
        let serverNames = Set(onServer.compactMap { $0["Name"]?.stringValue })
        #expect(Set(local.compactMap { $0.arrayValue?.last?.stringValue }) == serverNames)
        #expect(serverNames.contains("Changed on the server"))
        #expect(
            onServer.filter { $0["Name"]?.stringValue?.hasSuffix("edited") == true }.count == 10,
            "\(serverNames.filter { !$0.hasPrefix(Self.marker) })")
        let matched = try await store.query(.match(soup: "accounts", path: "Name", key: "server", pageSize: 5))
        #expect(matched.count == 1)
        for file in [path, path + "-wal"] where FileManager.default.fileExists(atPath: file) {
            #expect(try Data(contentsOf: URL(fileURLWithPath: file)).range(of: Data(Self.marker.utf8)) == nil, "\(file)")
        }
        await org.stop()
    }
}
