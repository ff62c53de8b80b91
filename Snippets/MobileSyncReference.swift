// The examples in MobileSync's doc comments (the symbol reference).
import Foundation
import MobileSync
import SalesforceREST
import SmartStore

#if canImport(Combine)
    import Combine
#else
    import OpenCombine
#endif

func syncing(store: SmartStore, client: RestClient) async throws {
    // snippet.syncManager
    let manager = try SyncManager(store: store, client: client)
    let target = try SoqlSyncDownTarget(query: "SELECT Id, Name FROM Account")
    let state = try await manager.syncDown(target: target, soupName: "accounts", name: "accounts") { print($0.progress) }
    // snippet.end
    print(state)
}

func paging(manager: SyncManager) async throws {
    // snippet.paging
    let target = try PagingSyncDownTarget(url: "https://api.example.com/users", keyField: "userId", keyType: .integer,
                                          pageSize: 100, firstPageIndex: 1, recordsPath: "data")
    try await manager.syncDown(target: target, soupName: "users", name: "users")
    // snippet.end
}

func backgroundRound(manager: SyncManager) async throws {
    // snippet.backgroundRound
    let round = try await BackgroundSyncRound(manager: manager, names: ["syncUpAccounts", "syncDownAccounts"])
    let report = await round.run() // from another task, when the time runs out: round.expire()
    print(report.succeeded, report.syncs.map(\.status))
    // snippet.end
}

func layoutsAndMetadata(manager: SyncManager) async throws {
    // snippet.layouts
    let layouts = try LayoutSyncManager(syncManager: manager)
    let layout = try await layouts.fetchLayout(forObjectAPIName: "Account", layoutType: "Compact", fetchMode: .cacheFirst)
    for item in layout?.sections.flatMap(\.layoutRows).flatMap(\.layoutItems) ?? [] { print(item.label ?? "") }
    // snippet.end
    // snippet.metadata
    let metadata = try MetadataSyncManager(syncManager: manager)
    let account = try await metadata.fetchMetadata(forObject: "Account", fetchMode: .cacheFirst)
    let fields = account?.fieldNames  // ["Id", "Name", …]
    // snippet.end
    print(fields ?? [])
}

/// A custom target's run, with the context's helpers.
struct PagesTarget {
    let pages: [[JSONValue]]

    // snippet.syncContext
    func syncDown(_ sync: inout SyncState, context: SyncContext) async throws {
        for page in pages {
            try await context.checkStop()
            let latest = try await context.saveRecords(page, in: sync.soupName, for: sync)
            sync.maxTimeStamp = max(sync.maxTimeStamp, latest ?? -1)
            try await context.save(&sync)
        }
    }
    // snippet.end
}

// snippet.recordTarget
struct ArchivingTarget: RecordSyncUpTarget {
    // json, idFieldName, …
    // snippet.hide
    var json: JSONValue { ["type": "archiving"] }
    var idFieldName: String { "Id" }
    var modificationDateFieldName: String { "LastModifiedDate" }
    var maxBatchSize: Int { 10 }
    var createFieldlist: [String]? { nil }
    var updateFieldlist: [String]? { nil }
    var externalIdFieldName: String? { nil }

    // snippet.show
    func deleteOnServer(objectType: String, id: String, client: RestClient) async throws -> SyncUpResponse {
        try await updateOnServer(objectType: objectType, id: id, fields: ["Archived__c": true], ifUnmodifiedSince: nil, client: client)
    }
}
// snippet.end
