import FastJSON
import Foundation
import MobileSyncSDKCompat
import SmartStore
import Testing

@testable import MobileSync

@Suite struct SyncsConfigTests {
    /// `Tests/Fixtures/sdk-configs` of the repository's root (the root package's tests read them
    /// too): our own config files, written in the SDK's formats.
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Tests/Fixtures/sdk-configs")

    /// Every file parses. `rest-and-custom-usersyncs.json` holds target forms the SDK readers accept
    /// beyond its own config files (iOS `"type": "rest"`, `"custom"` targets, `SFCollectionSyncUpTarget`);
    /// see `Tests/Fixtures/README.md`.
    @Test(arguments: ["usersyncs.json", "globalsyncs.json", "app-usersyncs.json", "rest-and-custom-usersyncs.json"])
    func sdkFormatFilesParse(_ file: String) throws {
        let config = try SyncsConfig(contentsOf: Self.fixtures.appendingPathComponent(file))
        #expect(!config.entries.isEmpty)
    }

    @Test func applyCreatesNamedSyncsAndSkipsExistingOnes() async throws {
        try await withHarness { harness in
            let config = try SyncsConfig(contentsOf: Self.fixtures.appendingPathComponent("usersyncs.json"))
            // Every sync needs its soup, the briefcase's placeholder too (the SDK ignores that one).
            for entry in config.entries where try !harness.store.hasSoup(entry.soupName) {
                try harness.store.registerSoup(entry.soupName, indexSpecs: [IndexSpec("Id", .string)])
            }
            let report = try await harness.manager.apply(config)
            #expect(
                report.created.contains("fetchOpenOpportunities") && report.created.contains("searchCases")
                    && report.created.contains("recentCases"))
            #expect(report.created.contains("refreshCases") && report.created.contains("pushCasesOneByOne"))
            #expect(report.created.contains("pushCasesComposite") && report.created.contains("pushOpportunitiesCollection"))
            let soql = try #require(try await harness.manager.syncStatus(named: "fetchOpportunitiesInPages"))
            #expect(soql.kind == .syncDown && soql.target["maxBatchSize"] == 500 && soql.status == .new)
            let single = try #require(try await harness.manager.syncStatus(named: "pushCasesOneByOne"))
            #expect(single.target["type"] == "single" && single.options.mergeMode == .leaveIfChanged)
            // The impl class names pick the target type; no impl means the collection target.
            #expect(try await harness.manager.syncStatus(named: "pushCasesComposite")?.target["type"] == "batch")
            #expect(try await harness.manager.syncStatus(named: "pushOpportunitiesCollection")?.target["type"] == "collection")
            // Every target type of the SDK's format is supported.
            #expect(
                report.created.contains("caseLayout") && report.created.contains("caseDescribe")
                    && report.created.contains("primeBriefcase"))
            let briefcase = try #require(try await harness.manager.syncStatus(named: "primeBriefcase"))
            #expect(briefcase.target["infos"]?.arrayValue?.count == 2)
            #expect(
                report.created.contains("fetchOrdersWithItems") && report.created.contains("pushOrdersWithItems") && report.errors.isEmpty)
            #expect(report.created.count == config.entries.count)
            let trees = try #require(try await harness.manager.syncStatus(named: "pushOrdersWithItems"))
            #expect(trees.target["type"] == "parent_children" && trees.target["children"]?["parentIdFieldName"] == "OrderId")
            #expect(trees.target["relationshipType"] == "MASTER_DETAIL")
            let treesDown = try #require(try await harness.manager.syncStatus(named: "fetchOrdersWithItems"))
            #expect(treesDown.target["children"]?["parentIdFieldName"] == "OrderId" && treesDown.target["relationshipType"] == "LOOKUP")
            let again = try await harness.manager.apply(config)
            #expect(again.created.isEmpty && again.skipped.count == report.created.count)
        }
    }

    /// The iOS `"type": "rest"` is the standard target its impl names (collection by default),
    /// and `"type": "custom"` targets resolve through the class names they were registered under.
    @Test func restAndCustomTargetsResolveThroughTheRegistry() async throws {
        try await withHarness { harness in
            let config = try SyncsConfig(contentsOf: Self.fixtures.appendingPathComponent("rest-and-custom-usersyncs.json"))
            for soup in Set(config.entries.map(\.soupName)) where try !harness.store.hasSoup(soup) {
                try harness.store.registerSoup(soup, indexSpecs: [IndexSpec("Id", .string)])
            }
            // Unregistered custom targets are reported by the class names they carry.
            let before = try await harness.manager.apply(config)
            #expect(before.errors.count == 2)
            #expect(
                before.errors.contains { _, error in error.contains("AuditEventSyncUpTarget") && error.contains("register(syncUp:_:)") })
            #expect(before.errors.map(\.name).sorted() == ["fetchNoteAttachments", "pushAuditEvents"])
            // Registered under their class names (the Android form is checked below).
            harness.manager.targets.register(syncUp: "AuditEventSyncUpTarget") { CollectionSyncUpTarget(json: $0) }
            harness.manager.targets.register(syncDown: "NoteAttachmentSyncDownTarget") { _ in
                try SoqlSyncDownTarget(query: "SELECT Id, Name, LastModifiedDate FROM Note")
            }
            let report = try await harness.manager.apply(config)
            #expect(report.errors.isEmpty)
            #expect(Set(before.created + report.created) == Set(config.entries.map(\.name)))
            #expect(try await harness.manager.syncStatus(named: "pushNotesStandard")?.target["type"] == "collection")
            #expect(try await harness.manager.syncStatus(named: "pushNotesBatchAsSerializedOnIOS")?.target["type"] == "batch")
            #expect(try await harness.manager.syncStatus(named: "pushNotesCollectionByImpl")?.target["type"] == "collection")
            #expect(try await harness.manager.syncStatus(named: "fetchNoteAttachments")?.target["type"] == "soql")
        }
    }

    @Test func androidClassNamesResolveCustomTargets() throws {
        let registry = SyncTargetRegistry()
        registry.register(syncUp: "AuditEventSyncUpTarget") { SingleRecordSyncUpTarget(json: $0) }
        let json: JSONValue = ["type": "custom", "androidImpl": "com.example.fieldapp.sync.AuditEventSyncUpTarget"]
        #expect(try registry.syncUpTarget(json).json["type"] == "single")
        #expect(throws: SyncError.self) { try registry.syncUpTarget(["type": "custom"]) }
        #expect(throws: SyncError.self) { try registry.syncDownTarget(["type": "custom", "iOSImpl": "Nothing"]) }
    }

    /// A file that is not a config is an error; a bad entry is skipped with a clear reason.
    @Test func badConfigsAreClearErrors() throws {
        func message(_ json: String) -> String? {
            do {
                return try SyncsConfig(data: Array(json.utf8)).rejected.first?.reason
            } catch {
                return "\(error)"
            }
        }
        #expect(message("{}") == #"Syncs config needs a "syncs" array"#)
        #expect(message(#"{"syncs": [{"syncType": "syncDown"}]}"#) == "syncs[0]: syncName is required")
        // Every problem of an entry is named: a missing "options" hides nothing behind it.
        let options = #"Options not defined in config (give "options": {"mergeMode": "OVERWRITE"} or LEAVE_IF_CHANGED)"#
        #expect(
            message(#"{"syncs": [{"syncName": "a", "syncType": "sideways", "soupName": "s"}]}"#)
                == "sync a: syncType must be syncDown or syncUp; Target not defined in config; \(options)")
        #expect(
            message(#"{"syncs": [{"syncName": "a", "syncType": "syncDown", "soupName": "s", "options": {}}]}"#)
                == "sync a: Target not defined in config")
        #expect(
            message(#"{"syncs": [{"syncName": "a", "syncType": "syncDown", "soupName": "s", "target": {"type": "soql"}}]}"#)
                == #"sync a: target: soql target needs a "query"; "# + options)
        let typo = message(
            #"{"syncs": [{"syncName": "a", "syncType": "syncDown", "soupName": "s", "target": {"type": "soql", "query": "SELEC Id FROM Account"}}]}"#
        )
        #expect(typo?.hasPrefix("sync a: target: ") == true && typo?.hasSuffix(options) == true, "\(typo ?? "")")
        #expect(
            message(
                #"{"syncs": [{"syncName": "a", "syncType": "syncDown", "soupName": "s", "target": {}, "options": {"mergeMode": "SOMETIMES"}}]}"#
            ) == "sync a: unknown mergeMode SOMETIMES")
        #expect(message("nope")?.hasPrefix("Syncs config is not valid JSON") == true)
    }

    /// As in the SDK, one bad entry does not keep the others from loading: it is skipped and
    /// reported by apply, the valid ones are created.
    @Test func aBadEntryIsSkippedAndTheOthersLoad() async throws {
        let config = try SyncsConfig(
            data: Array(
                #"""
                {"syncs": [
                  {"syncName": "good", "syncType": "syncDown", "soupName": "accounts",
                   "target": {"type": "soql", "query": "SELECT Id FROM Account"}, "options": {"mergeMode": "OVERWRITE"}},
                  {"syncType": "syncDown", "soupName": "accounts"},
                  {"syncName": "noTarget", "syncType": "syncUp", "soupName": "accounts", "options": {}},
                  {"syncName": "alsoGood", "syncType": "syncUp", "soupName": "accounts", "target": {"type": "collection"}, "options": {}}
                ]}
                """#.utf8))
        #expect(config.entries.map(\.name) == ["good", "alsoGood"])
        #expect(config.rejected.map(\.position) == [1, 2] && config.rejected.map(\.name) == [nil, "noTarget"])
        try await withHarness { harness in
            let report = try await harness.manager.apply(config)
            #expect(report.created == ["good", "alsoGood"])
            #expect(report.errors.map(\.name) == ["syncs[1]", "noTarget"])
            #expect(report.errors.last?.error == "sync noTarget: Target not defined in config")
            #expect(try await harness.manager.hasSync(named: "alsoGood"))
        }
    }
}
