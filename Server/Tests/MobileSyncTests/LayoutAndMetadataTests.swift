import FastJSON
import Foundation
import MobileSyncSDKCompat
import SmartStore
import Testing

@testable import MobileSync

/// Layout and metadata sync downs: one entry each, keyed like the SDK's.
@Suite struct LayoutAndMetadataTests {
    @Test func layoutSyncDownStoresOneEntryPerLayout() async throws {
        try await withHarness { harness in
            try harness.store.registerSoup("layouts", indexSpecs: [IndexSpec("Id", .string), IndexSpec("__local__", .string)])
            let compact = LayoutSyncDownTarget(objectType: "Account", formFactor: "Medium", layoutType: "Compact", mode: "View")
            let sync = try await harness.manager.syncDown(target: compact, soupName: "layouts", name: "accountLayout")
            #expect(sync.status == .done && sync.totalSize == 1, "\(sync.error)")
            let full = LayoutSyncDownTarget(objectType: "Contact")
            #expect(try await harness.manager.syncDown(target: full, soupName: "layouts").status == .done)
            let entries = try await harness.store.query(.all(soup: "layouts", orderPath: "Id", pageSize: 10))
            #expect(entries.map { $0["Id"] } == ["Account-Medium-Compact-View-null", "Contact-null-null-null-null"])
            #expect(
                entries[0]["layoutType"] == "Compact" && entries[0]["objectApiName"] == "Account"
                    && entries[0]["sections"]?.arrayValue?.isEmpty == false)
            #expect(entries[0]["__local__"] == false && entries[0]["__sync_id__"] == .int(sync.id))
            // A resync replaces the entry instead of adding one; ghost cleanup keeps it.
            #expect(try await harness.manager.reSync(named: "accountLayout").status == .done)
            await #expect(try harness.store.count(.all(soup: "layouts", pageSize: 10)) == 2)
            #expect(try await harness.manager.cleanResyncGhosts(named: "accountLayout") == 0)
            // Targets round-trip through their JSON (sync states, usersyncs.json).
            let again = try harness.manager.targets.syncDownTarget(compact.json)
            #expect((again as? LayoutSyncDownTarget)?.entryId == compact.entryId)
        }
    }

    @Test func metadataSyncDownStoresTheDescribe() async throws {
        try await withHarness { harness in
            try harness.store.registerSoup("metadata", indexSpecs: [IndexSpec("Id", .string)])
            let sync = try await harness.manager.syncDown(
                target: MetadataSyncDownTarget(objectType: "Account"), soupName: "metadata", name: "accountMetadata")
            #expect(sync.status == .done && sync.totalSize == 1, "\(sync.error)")
            let entry = try await #require(try harness.store.query(.all(soup: "metadata", pageSize: 10)).first)
            #expect(entry["Id"] == "Account" && entry["name"] == "Account" && entry["keyPrefix"] == "001")
            #expect(entry["fields"]?.arrayValue?.contains { $0["name"] == "Name" } == true)
            #expect(try await harness.manager.reSync(named: "accountMetadata").status == .done)
            await #expect(try harness.store.count(.all(soup: "metadata", pageSize: 10)) == 1)
            // An unknown object fails the sync with the server's error.
            let failed = try await harness.manager.syncDown(target: MetadataSyncDownTarget(objectType: "Nope__c"), soupName: "metadata")
            #expect(failed.status == .failed && failed.error.contains("NOT_FOUND"), "\(failed.error)")
            #expect(throws: SyncError.self) { try harness.manager.targets.syncDownTarget(["type": "metadata"]) }
        }
    }
}
