// snippet.hide
// The example of MobileSync's "Conflicts and several processes" article.
import MobileSync
import SmartStore

func resolve(manager: SyncManager, id: Int64, record: JSONValue) async throws {
    // snippet.show
    for conflict in try await manager.conflicts(soup: "accounts") {
        print(conflict.kind, conflict.fields, conflict.local["Name"] ?? .null, conflict.server?["Name"] ?? .null, conflict.base?["Name"] ?? .null)
        try await manager.resolveConflict(conflict, keeping: .server) // as shown: refused if the entry changed since
    }
    try await manager.resolveConflict(entryId: id, soup: "accounts", keeping: .local)        // sent next time
    try await manager.resolveConflict(entryId: id, soup: "accounts", keeping: .server)       // the server's version, clean
    try await manager.resolveConflict(entryId: id, soup: "accounts", keeping: .merged(record))
    // snippet.hide
}
