// snippet.hide
// The examples of MobileSync's overview and its "Getting started" article.
import Foundation
// snippet.show
// snippet.setUp
import MobileSync
import SalesforceREST
import SmartStore

// snippet.hide
let instanceURL = URL(fileURLWithPath: "/")
let accessToken = "secret"
// snippet.show
let store = try SmartStore(path: "app/store.sqlite")
try store.registerSoup("accounts", indexSpecs: [
    IndexSpec("Id", .string), IndexSpec("Name", .string), IndexSpec("LastModifiedDate", .string),
    IndexSpec("__local__", .string), IndexSpec("__sync_id__", .integer),
])
let client = RestClient(instanceURL: instanceURL, tokenProvider: StaticAccessToken(accessToken))
let manager = try SyncManager(store: store, client: client)
// snippet.end
// snippet.hide

func overview(store: SmartStore, client: RestClient) async throws {
    // snippet.show
    // snippet.overview
    let manager = try SyncManager(store: store, client: client)
    try await manager.syncDown(target: try SoqlSyncDownTarget(query: "SELECT Id, Name FROM Account"),
                               soupName: "accounts", name: "accounts")
    try await store.createLocally(["Name": "Offline Co"], objectType: "Account", in: "accounts")
    try await manager.syncUp(options: SyncOptions(mergeMode: .leaveIfChanged, fieldlist: ["Name"]), soupName: "accounts")
    // snippet.end
    // snippet.hide
}

func steps(manager: SyncManager, store: SmartStore, entryId: Int64, otherEntryId: Int64) async throws {
    // snippet.show
    // snippet.syncDown
    let target = try SoqlSyncDownTarget(query: "SELECT Id, Name, LastModifiedDate FROM Account")
    let sync = try await manager.syncDown(target: target, soupName: "accounts", name: "accounts") { state in
        print(state.status, state.progress)        // RUNNING 0, RUNNING 40, …, DONE 100
    }
    // snippet.end
    // snippet.edit
    try await store.createLocally(["Name": "Offline Co"], objectType: "Account", in: "accounts")
    try await store.updateLocally(["Name": "Renamed"], entryId: entryId, in: "accounts")
    try await store.deleteLocally(entryId: otherEntryId, in: "accounts")
    // snippet.end
    // snippet.syncUp
    let options = SyncOptions(mergeMode: .leaveIfChanged, fieldlist: ["Name"])
    let up = try await manager.syncUp(options: options, soupName: "accounts")
    // snippet.end
    // snippet.hide
    print(sync, up)
    // snippet.show
    // snippet.again
    try await manager.reSync(named: "accounts")              // only what changed since the last run
    try await manager.cleanResyncGhosts(named: "accounts")   // drop records the server no longer has
    manager.stop()                                           // running syncs end STOPPED at their next page
    try await manager.restart(restartStoppedSyncs: true)     // and resume
    // snippet.end
    // snippet.hide
}
