// snippet.hide
// The examples of MobileSync's "Live syncs" article.
import MobileSync

func live(manager: SyncManager) async throws {
    // snippet.show
    // snippet.start
    try await manager.syncDown(target: try SoqlSyncDownTarget(query: "SELECT Id, Name, Industry FROM Account"),
                               soupName: "accounts", name: "accounts")
    try await manager.startLiveSync(named: "accounts")
    // …
    try await manager.stopLiveSync(named: "accounts")
    // snippet.end
    // snippet.schedule
    let schedule = try await manager.schedule(["accountsUp", "contacts"], every: .seconds(300))
    // snippet.end
    // snippet.hide
    print(schedule)
}
