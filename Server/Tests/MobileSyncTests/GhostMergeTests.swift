import FastJSON
import Foundation
import SalesforceREST
import SmartStore
import Testing

@testable import LocalForce
@testable import MobileSync

/// Ghost cleanup of SOQL targets by sorted merge: the server's ids in Id order, pages of 2,000,
/// against the soup's ids in the same order.
@Suite struct GhostMergeTests {
    @Test func mergesServerPagesAgainstTheSoupWithFewRequests() async throws {
        try await withHarness { harness in
            let ids = try await harness.createAccounts(4500)
            let sync = try await harness.manager.syncDown(
                target: try SoqlSyncDownTarget(query: "SELECT Id, Name FROM Account"), soupName: "accounts")
            #expect(sync.status == .done)
            let deleted = stride(from: 0, to: 4500, by: 97).map { ids[$0] }
            _ = try await harness.client.deleteRecords(deleted) // 47 ids
            let before = harness.client.requestCount
            #expect(try await harness.manager.cleanResyncGhosts(id: sync.id) == deleted.count)
            // 4,454 ids in pages of 2,000: three requests (the SDK's way needs ten of 500).
            #expect(harness.client.requestCount - before == 3)
            let records = try harness.localRecords()
            #expect(records.count == 4500 - deleted.count)
            #expect(deleted.allSatisfy { records[$0] == nil })
        }
    }

    @Test func aLimitedQueryIsReadOnceAndSorted() async throws {
        try await withHarness { harness in
            let ids = try await harness.createAccounts(30)
            let sync = try await harness.manager.syncDown(
                target: try SoqlSyncDownTarget(query: "SELECT Id, Name FROM Account ORDER BY Name LIMIT 20"), soupName: "accounts")
            #expect(try harness.localRecords().count == 20)
            try await harness.client.delete("Account", id: ids[3])
            // Account 3 is gone; Account 20 now falls inside the LIMIT but was never synced.
            let before = harness.client.requestCount
            #expect(try await harness.manager.cleanResyncGhosts(id: sync.id) == 1)
            #expect(harness.client.requestCount - before == 1)
            #expect(try harness.localRecords()[ids[3]] == nil)
        }
    }

    @Test func anUnsortedServerFallsBackWithoutDeletingAnything() async throws {
        try await withHarness { harness in
            try await harness.createAccounts(5)
            let sync = try await harness.manager.syncDown(
                target: try SoqlSyncDownTarget(query: "SELECT Id, Name FROM Account"), soupName: "accounts")
            let context = SyncContext(manager: harness.manager, onUpdate: nil, isCleanup: true)
            // Ascending case-insensitively, not byte-wise: "a" (97) sorts after "B" (66). The
            // local "00B" would look gone if the merge trusted this order.
            var pages = [["0000", "00a"], ["00B"]]
            let result = try await context.deleteGhostsByMerge(soup: "accounts", syncId: sync.id) {
                pages.isEmpty ? nil : pages.removeFirst()
            }
            #expect(result == nil)
            #expect(try harness.localRecords().count == 5)
        }
    }

    @Test func anOffsetWithoutLimitFallsBackToSlices() async throws {
        try await withHarness { harness in
            let ids = try await harness.createAccounts(30)
            let sync = try await harness.manager.syncDown(
                target: try SoqlSyncDownTarget(query: "SELECT Id, Name FROM Account ORDER BY Name OFFSET 5"), soupName: "accounts")
            #expect(try harness.localRecords().count == 25)
            try await harness.client.delete("Account", id: ids[12])
            #expect(try await harness.manager.cleanResyncGhosts(id: sync.id) == 1)
            let records = try harness.localRecords()
            #expect(records.count == 24 && records[ids[12]] == nil)
        }
    }
}
