// snippet.hide
// The example of MobileSync's "Syncing a paging REST API" article.
import MobileSync

func users(manager: SyncManager, apiKey: String) async throws {
    // snippet.show
    let users = try PagingSyncDownTarget(
        url: "https://api.example.com/users", keyField: "userId", keyType: .integer,
        pageSize: 100, firstPageIndex: 1, recordsPath: "data", headers: ["X-Api-Key": apiKey])
    try await manager.syncDown(target: users, soupName: "users", name: "users")
    try await manager.reSync(named: "users")          // later: the same walk, applying only changes
    // snippet.hide
}
