import LocalForceTesting
import MobileSync
import SmartStore
import Testing

@Test func syncsAccounts() async throws {
    try await withLocalForce { org, client in // transport: .http to go over a real socket
        _ = try await org.insert([["Name": "Acme"], ["Name": "Globex"]], of: "Account")
        let store = try SmartStore()
        try store.registerSoup("accounts", indexSpecs: [IndexSpec("Id", .string), IndexSpec("__local__", .string)])
        let manager = try SyncManager(store: store, client: client)
        let down = try await manager.syncDown(target: try SoqlSyncDownTarget(query: "SELECT Id, Name FROM Account"), soupName: "accounts")
        #expect(down.status == .done && down.totalSize == 2)
        try await store.createLocally(["Name": "Initech"], objectType: "Account", in: "accounts")
        let up = try await manager.syncUp(options: SyncOptions(fieldlist: ["Name"]), soupName: "accounts")
        #expect(up.status == .done)
        #expect(try await client.query("SELECT Id FROM Account").totalSize == 3)
    }
}
