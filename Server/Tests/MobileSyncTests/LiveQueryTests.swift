import FastJSON
import Foundation
import MobileSync
import SalesforceREST
import SmartStore
import Testing

/// A live query over a soup while a sync down fills it.
@Suite struct LiveQueryTests {
    /// Three pages of 200, 200 and 50 accounts: the live count goes 0, then only through states
    /// the soup had after a page (200, 400, 450), each at most once (no result is emitted twice,
    /// so the sync's state saves in `syncs_soup` and a resync that changes nothing add none).
    @Test func aSyncDownEmitsPageByPageAndNothingElse() async throws {
        try await withHarness { harness in
            try await harness.createAccounts(450)
            let stream = harness.store.observe(smartSql: "select count(*) from {accounts}", pageSize: 1)
            let (started, start) = AsyncStream<Void>.makeStream()
            let counts = Task {
                var seen: [Int64] = []
                for try await rows in stream {
                    seen.append(rows.first?.arrayValue?.first?.int64Value ?? -1)
                    start.yield()
                }
                return seen
            }
            for await _ in started { break } // the first result is in before the sync writes
            let target = try SoqlSyncDownTarget(query: "SELECT Id, Name, LastModifiedDate FROM Account", maxBatchSize: 200)
            let sync = try await harness.manager.syncDown(target: target, soupName: "accounts", name: "accounts")
            #expect(sync.isDone && sync.totalSize == 450)
            try await Task.sleep(for: .milliseconds(150))
            let again = try await harness.manager.reSync(named: "accounts")
            #expect(again.isDone)
            try await Task.sleep(for: .milliseconds(150))
            counts.cancel()
            let seen = try await counts.value
            #expect(seen.first == 0 && seen.last == 450)
            #expect(Set(seen).isSubset(of: [0, 200, 400, 450]) && seen.count == Set(seen).count)
        }
    }
}
