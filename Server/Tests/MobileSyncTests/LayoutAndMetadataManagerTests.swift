import FastJSON
import Foundation
import SmartStore
import Testing

@testable import MobileSync

/// The SDK's layout and metadata managers, in every fetch mode, against LocalForce.
@Suite struct LayoutAndMetadataManagerTests {
    /// Every request fails with a 500 (after the client's retries) while `body` runs.
    static func withServerDown(_ harness: SyncHarness, _ body: () async throws -> Void) async throws {
        await harness.localForce.faults.configure(rate: 1, kinds: [.serverError])
        do {
            try await body()
        } catch {
            await harness.localForce.faults.configure(rate: 0)
            throw error
        }
        await harness.localForce.faults.configure(rate: 0)
    }

    @Test func layoutsInEveryMode() async throws {
        try await withHarness { harness in
            let layouts = try LayoutSyncManager(syncManager: harness.manager)
            #expect(try harness.store.hasSoup(LayoutSyncManager.soupName))
            // Nothing cached yet.
            #expect(try await layouts.fetchLayout(forObjectAPIName: "Account", layoutType: "Compact", fetchMode: .cacheOnly) == nil)
            // Cache first: fetched, cached, modelled.
            let layout = try #require(
                try await layouts.fetchLayout(forObjectAPIName: "Account", layoutType: "Compact", fetchMode: .cacheFirst))
            #expect(layout.layoutType == "Compact" && layout.mode == "View" && !layout.sections.isEmpty)
            let items = layout.sections.flatMap(\.layoutRows).flatMap(\.layoutItems)
            #expect(items.contains { $0.layoutComponents.first?["apiName"] == "Name" && $0.label == "Account Name" })
            #expect(layout.sections[0].heading == "Account Information" && layout.sections[0].useHeading)
            #expect(try await layouts.fetchLayout(forObjectAPIName: "Account", layoutType: "Compact", fetchMode: .cacheOnly) == layout)
            // A different request is a different entry.
            #expect(try await layouts.fetchLayout(forObjectAPIName: "Account", layoutType: "Full", fetchMode: .cacheOnly) == nil)
            // Server first and server only fetch again; one named sync per entry, resynced.
            #expect(try await layouts.fetchLayout(forObjectAPIName: "Account", layoutType: "Compact", fetchMode: .serverFirst) != nil)
            #expect(try await layouts.fetchLayout(forObjectAPIName: "Account", layoutType: "Compact", fetchMode: .serverOnly) != nil)
            let syncs = try SyncManager.syncStates(in: harness.store)
            #expect(syncs.count == 1 && syncs[0].name == "sfdcLayouts:Account-null-Compact-null-null")
            #expect(try await harness.store.count(.all(soup: LayoutSyncManager.soupName, pageSize: 1)) == 1)

            try await Self.withServerDown(harness) { () async throws in
                // The cache answers when the server cannot (the SDK never calls back there).
                #expect(
                    try await layouts.fetchLayout(forObjectAPIName: "Account", layoutType: "Compact", fetchMode: .serverFirst)?.sections
                        == layout.sections)
                #expect(
                    try await layouts.fetchLayout(forObjectAPIName: "Account", layoutType: "Compact", fetchMode: .cacheFirst)?.sections
                        == layout.sections)
                await #expect(throws: SyncError.self) {
                    try await layouts.fetchLayout(forObjectAPIName: "Account", layoutType: "Compact", fetchMode: .serverOnly)
                }
                // Nothing cached and no server: the server's failure.
                await #expect(throws: SyncError.self) {
                    try await layouts.fetchLayout(forObjectAPIName: "Contact", fetchMode: .serverFirst)
                }
                // The SDK's form: nil, with the request's parts.
                let answer = await withCheckedContinuation { continuation in
                    layouts.fetchLayout(
                        forObjectAPIName: "Contact", formFactor: "Small", layoutType: nil, mode: "Edit", recordTypeId: nil,
                        syncMode: .serverFirst
                    ) { object, formFactor, _, mode, _, layout in continuation.resume(returning: (object, formFactor, mode, layout)) }
                }
                #expect(answer.0 == "Contact" && answer.1 == "Small" && answer.2 == "Edit" && answer.3 == nil)
            }
            // Ghost cleanup of a layout sync removes nothing.
            #expect(try await harness.manager.cleanResyncGhosts(named: "sfdcLayouts:Account-null-Compact-null-null") == 0)
            #expect(try await harness.store.count(.all(soup: LayoutSyncManager.soupName, pageSize: 1)) == 1)
        }
    }

    @Test func metadataInEveryMode() async throws {
        try await withHarness { harness in
            let metadata = try MetadataSyncManager(syncManager: harness.manager)
            #expect(try await metadata.fetchMetadata(forObject: "Account", fetchMode: .cacheOnly) == nil)
            let account = try #require(try await metadata.fetchMetadata(forObject: "Account", fetchMode: .cacheFirst))
            #expect(account.name == "Account" && account.keyPrefix == "001" && account.queryable && account.createable)
            #expect(account.fieldNames.contains("Name") && account.urls["describe"] != nil)
            #expect(try await metadata.fetchMetadata(forObject: "Account", fetchMode: .serverOnly)?.name == "Account")
            try await Self.withServerDown(harness) { () async throws in
                #expect(try await metadata.fetchMetadata(forObject: "Account", fetchMode: .serverFirst)?.fields == account.fields)
                await #expect(throws: SyncError.self) { try await metadata.fetchMetadata(forObject: "Account", fetchMode: .serverOnly) }
                #expect(try await metadata.fetchMetadata(forObject: "Contact", fetchMode: .cacheOnly) == nil)
            }
            let sdkForm = await withCheckedContinuation { continuation in
                metadata.fetchMetadata(forObject: "Contact", mode: .cacheFirst) { continuation.resume(returning: $0) }
            }
            #expect(sdkForm?.name == "Contact")
            // Unknown objects: the server's answer is the failure.
            await #expect(throws: SyncError.self) { try await metadata.fetchMetadata(forObject: "Nope__c", fetchMode: .serverFirst) }
        }
    }

    /// Two fetches of one entry at once share one sync.
    @Test func concurrentFetchesOfOneEntry() async throws {
        try await withHarness { harness in
            let metadata = try MetadataSyncManager(syncManager: harness.manager)
            await harness.localForce.faults.configure(rate: 0, latency: .milliseconds(100))
            async let first = metadata.fetchMetadata(forObject: "Account", fetchMode: .serverOnly)
            async let second = metadata.fetchMetadata(forObject: "Account", fetchMode: .serverOnly)
            let (a, b) = try await (first, second)
            #expect(a?.name == "Account" && b?.name == "Account")
            #expect(try SyncManager.syncStates(in: harness.store).count == 1)
        }
    }
}
