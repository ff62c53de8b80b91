// snippet.hide
// The examples of MobileSync's "Custom targets" article.
import MobileSync

/// Stands for the article's target (CustomTargetTests.AccountsAndIndustries).
struct AccountsAndIndustries: SyncDownTarget {
    var json: JSONValue { ["type": "accountsAndIndustries"] }
    var idFieldName: String { "Id" }
    var modificationDateFieldName: String { "LastModifiedDate" }
    func syncDown(_ sync: inout SyncState, context: SyncContext) async throws {}
    func cleanGhosts(_ sync: SyncState, context: SyncContext) async throws -> Int { 0 }
}

func register(manager: SyncManager) {
    // snippet.show
    // snippet.register
    manager.targets.register(syncDown: "accountsAndIndustries") { _ in AccountsAndIndustries() }
    // snippet.end
    // snippet.hide
}
