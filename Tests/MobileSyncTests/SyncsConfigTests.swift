import FastJSON
import Foundation
import Testing
@testable import MobileSync
import SmartStore

@Suite struct SyncsConfigTests {
    static let fixtures: URL = {
        if let shared = ProcessInfo.processInfo.environment["MSYNC_SHARED_DIR"] {
            return URL(fileURLWithPath: shared).appendingPathComponent("fixtures/sdk-configs")
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/fixtures/sdk-configs")
    }()

    @Test(arguments: ["android-test-usersyncs.json", "ios-test-usersyncs.json", "android-test-globalsyncs.json", "ios-test-globalsyncs.json",
                      "ios-explorer-usersyncs.json", "shared-explorer-usersyncs.json"])
    func sdkFilesParse(_ file: String) throws {
        let config = try SyncsConfig(contentsOf: Self.fixtures.appendingPathComponent(file))
        #expect(!config.entries.isEmpty)
    }

    @Test func applyCreatesNamedSyncsAndSkipsExistingOnes() async throws {
        try await withHarness { harness in
            try harness.store.registerSoup("contacts", indexSpecs: [IndexSpec("Id", .string)])
            for soup in ["userSoup", "userSoup1", "globalSoup"] where try !harness.store.hasSoup(soup) {
                try harness.store.registerSoup(soup, indexSpecs: [IndexSpec("Id", .string)])
            }
            let config = try SyncsConfig(contentsOf: Self.fixtures.appendingPathComponent("android-test-usersyncs.json"))
            for entry in config.entries where try !harness.store.hasSoup(entry.soupName) {
                try harness.store.registerSoup(entry.soupName, indexSpecs: [IndexSpec("Id", .string)])
            }
            let report = try await harness.manager.apply(config)
            #expect(report.created.contains("soqlSyncDown") && report.created.contains("soslSyncDown") && report.created.contains("mruSyncDown"))
            #expect(report.created.contains("refreshSyncDown") && report.created.contains("singleRecordSyncUp"))
            #expect(report.created.contains("batchSyncUp") && report.created.contains("collectionSyncUp"))
            let soql = try #require(try await harness.manager.syncStatus(named: "soqlSyncDownWithBatchSize"))
            #expect(soql.kind == .syncDown && soql.target["maxBatchSize"] == 200 && soql.status == .new)
            let single = try #require(try await harness.manager.syncStatus(named: "singleRecordSyncUp"))
            #expect(single.target["type"] == "single" && single.options.mergeMode == .leaveIfChanged)
            // Every target type of the SDK's file is supported.
            #expect(report.created.contains("layoutSyncDown") && report.created.contains("metadataSyncDown") && report.created.contains("briefcaseSyncDown"))
            let briefcase = try #require(try await harness.manager.syncStatus(named: "briefcaseSyncDown"))
            #expect(briefcase.target["infos"]?.arrayValue?.count == 2)
            #expect(report.created.contains("parentChildrenSyncDown") && report.created.contains("parentChildrenSyncUp") && report.errors.isEmpty)
            let trees = try #require(try await harness.manager.syncStatus(named: "parentChildrenSyncUp"))
            #expect(trees.target["type"] == "parent_children" && trees.target["children"]?["parentIdFieldName"] == "AccountId")
            let again = try await harness.manager.apply(config)
            #expect(again.created.isEmpty && again.skipped.count == report.created.count)
        }
    }

    @Test func badConfigsAreClearErrors() throws {
        func message(_ json: String) -> String? {
            do {
                _ = try SyncsConfig(data: Array(json.utf8))
                return nil
            } catch {
                return "\(error)"
            }
        }
        #expect(message("{}") == #"Syncs config needs a "syncs" array"#)
        #expect(message(#"{"syncs": [{"syncType": "syncDown"}]}"#) == "syncs[0]: syncName is required")
        #expect(message(#"{"syncs": [{"syncName": "a", "syncType": "sideways", "soupName": "s"}]}"#) == "sync a: syncType must be syncDown or syncUp")
        #expect(message(#"{"syncs": [{"syncName": "a", "syncType": "syncDown", "soupName": "s", "options": {}}]}"#) == "sync a: Target not defined in config")
        #expect(message(#"{"syncs": [{"syncName": "a", "syncType": "syncDown", "soupName": "s", "target": {"type": "soql"}}]}"#) == "sync a: Options not defined in config")
        #expect(message(#"{"syncs": [{"syncName": "a", "syncType": "syncDown", "soupName": "s", "target": {}, "options": {"mergeMode": "SOMETIMES"}}]}"#) == "unknown mergeMode SOMETIMES")
        #expect(message("nope")?.hasPrefix("Syncs config is not valid JSON") == true)
    }
}
