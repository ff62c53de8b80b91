// snippet.hide
// The examples of LocalForceTesting's "Testing with LocalForce" article.
// snippet.show
// snippet.first
import LocalForceTesting
import MobileSync
import SmartStore
import Testing

@Test func syncsAccountsDown() async throws {
    try await withLocalForce { org, client in
        _ = try await org.insert([["Name": "Acme"], ["Name": "Globex"]], of: "Account")
        let store = try SmartStore()
        try store.registerSoup("accounts", indexSpecs: [IndexSpec("Id", .string), IndexSpec("__local__", .string)])
        let manager = try SyncManager(store: store, client: client)
        let sync = try await manager.syncDown(
            target: try SoqlSyncDownTarget(query: "SELECT Id, Name FROM Account"),
            soupName: "accounts")
        #expect(sync.status == .done && sync.totalSize == 2)
        #expect(try await store.count(.all(soup: "accounts", pageSize: 1)) == 2)
    }
}
// snippet.end
// snippet.hide

@Test func losesAnAnswer() async throws {
    // snippet.show
    // snippet.faults
    let faults = FaultInjection()
    try await withLocalForce(faults: faults) { org, client in
        await faults.schedule(.dropAfter, matching: { $0.method == "POST" })
        await #expect(throws: RestError.self) { _ = try await client.create("Account", fields: ["Name": "Lost"]) }
        // The create was applied; only its answer was lost.
        let names = try await client.query("SELECT Name FROM Account").records()
        #expect(names.count == 1)
    }
    // snippet.end
    // snippet.hide
}

@Test func withoutAClosure() async throws {
    // snippet.show
    // snippet.started
    let org = try await TestOrg.start(transport: .http)
    let page = try await org.client.query("SELECT Id FROM Account") // org.localForce, org.baseURL too
    #expect(page.totalSize == 0)
    await org.stop()
    // snippet.end
    // snippet.hide
}
