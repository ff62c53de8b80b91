import Foundation
import MobileSync
import SalesforceREST
import SmartStore

func syncAccounts(org: URL, token: String) async throws {
    let store = try SmartStore(path: "app/store.sqlite")
    try store.registerSoup("accounts", indexSpecs: [
        IndexSpec("Id", .string), IndexSpec("Name", .string), IndexSpec("LastModifiedDate", .string),
        IndexSpec("__local__", .string), IndexSpec("__sync_id__", .integer),
    ])
    let manager = try SyncManager(store: store, client: RestClient(instanceURL: org, tokenProvider: StaticAccessToken(token)))

    let accounts = try SoqlSyncDownTarget(query: "SELECT Id, Name, LastModifiedDate FROM Account")
    try await manager.syncDown(target: accounts, soupName: "accounts", name: "accounts")
    try await store.createLocally(["Name": "Offline Co"], objectType: "Account", in: "accounts")
    let up = try await manager.syncUp(options: SyncOptions(mergeMode: .leaveIfChanged, fieldlist: ["Name"]), soupName: "accounts")
    print(up.status, up.conflictCount, up.failedRecordCount)
    try await manager.reSync(named: "accounts")             // only what changed since
    try await manager.cleanResyncGhosts(named: "accounts")  // drop what the server deleted
}
