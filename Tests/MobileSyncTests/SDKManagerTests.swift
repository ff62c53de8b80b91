import FastJSON
import Foundation
import LocalForceTesting
import MobileSync
import SalesforceREST
import SmartStore
import Testing

/// The SDK manager: the current user's stores and managers, default configs once per session,
/// and a user switch that closes the previous user's.
@Suite struct SDKManagerTests {
    static let userStore = #"""
        {"soups": [
          {"soupName": "accounts", "indexes": [{"path": "Id", "type": "string"}, {"path": "Name", "type": "string"},
                                               {"path": "LastModifiedDate", "type": "string"}, {"path": "__local__", "type": "string"}]},
          {"soupName": "broken", "indexes": [{"path": "Id", "type": "text"}]}
        ]}
        """#
    static let userSyncs = #"""
        {"syncs": [
          {"syncName": "syncDownAccounts", "syncType": "syncDown", "soupName": "accounts",
           "target": {"type": "soql", "query": "SELECT Id, Name, LastModifiedDate FROM Account"}, "options": {"mergeMode": "OVERWRITE"}},
          {"syncName": "noTarget", "syncType": "syncDown", "soupName": "accounts", "options": {}}
        ]}
        """#

    @Test func templateSetupSyncAndUserSwitch() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sdk-manager-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let resources = folder.appendingPathComponent("resources")
        try FileManager.default.createDirectory(at: resources, withIntermediateDirectories: true)
        try Data(Self.userStore.utf8).write(to: resources.appendingPathComponent("userstore.json"))
        try Data(Self.userSyncs.utf8).write(to: resources.appendingPathComponent("usersyncs.json"))

        let org = try await TestOrg.start(transport: .http)
        let url = try #require(org.baseURL)
        _ = try await org.localForce.insert([["Name": "Acme"], ["Name": "Globex"]], of: "Account")
        let sdk = MobileSyncSDKManager(root: folder.appendingPathComponent("root"), resourcesDirectory: resources)
        #expect(throws: SyncError.self) { try sdk.store() }

        let alice = UserAccount(userId: "005A", orgId: "00DA", instanceURL: url, tokenProvider: StaticAccessToken(TestOrg.token))
        try await sdk.setCurrentUser(alice)
        let storeReport = try #require(try sdk.setupUserStoreFromDefaultConfig())
        #expect(storeReport.registered == ["accounts"] && storeReport.rejected.map(\.soupName) == ["broken"])
        #expect(try sdk.setupUserStoreFromDefaultConfig() == nil) // once per session
        let syncsReport = try #require(try await sdk.setupUserSyncsFromDefaultConfig())
        #expect(syncsReport.created == ["syncDownAccounts"] && syncsReport.errors.map(\.name) == ["noTarget"])
        #expect(try await sdk.setupUserSyncsFromDefaultConfig() == nil)
        #expect(try await sdk.setupGlobalSyncsFromDefaultConfig() == nil) // no globalsyncs.json

        let manager = try sdk.syncManager()
        #expect(try sdk.syncManager() === manager)
        #expect(try sdk.store() === manager.store)
        let sync = try await manager.reSync(named: "syncDownAccounts")
        #expect(sync.isDone && sync.totalSize == 2)
        #expect(try await sdk.store().count(.all(soup: "accounts", pageSize: 1)) == 2)
        let aliceFile = folder.appendingPathComponent("root/users/00DA-005A/stores/defaultStore/store.sqlite").path
        #expect(FileManager.default.fileExists(atPath: aliceFile))

        // Another user: Alice's manager stops, Bob gets his own store and a new session.
        let bob = UserAccount(userId: "005B", orgId: "00DA", instanceURL: url, tokenProvider: StaticAccessToken(TestOrg.token))
        try await sdk.setCurrentUser(bob)
        #expect(await manager.isStopped)
        #expect(try sdk.store() !== manager.store)
        #expect(try !sdk.store().hasSoup("accounts"))
        #expect(try sdk.setupUserStoreFromDefaultConfig()?.registered == ["accounts"])

        try await sdk.logout()
        #expect(sdk.currentUser == nil)
        #expect(throws: SyncError.self) { try sdk.syncManager() }
        await org.stop()
    }
}
