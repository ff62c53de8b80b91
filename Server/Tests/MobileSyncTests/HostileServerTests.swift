import FastJSON
import Foundation
import SalesforceREST
import SmartStore
import Testing

@testable import LocalForce
@testable import MobileSync

/// A server whose records carry the engine's and the store's fields (LocalForce's answers
/// rewritten by `faults.scheduleTamper`): no sync down stores them, and none can aim a write at
/// another entry through `_soupEntryId`.
@Suite struct HostileServerTests {
    /// The fields a hostile server adds to every record it sends; `_soupEntryId` names `victim`.
    static func poisoned(_ victim: Int64) -> [String: JSONValue] {
        [
            "_soupEntryId": .int(victim), "_soupLastModifiedDate": 1, "_soupCreatedDate": 1, "__local__": true,
            "__locally_updated__": true, "__last_error__": "from the server", "__sync_id__": 999_999,
            "__create_attempt__": ["notBefore": 0, "sent": ["Name": "x"]], "__update_attempt__": ["sent": ["Name": "x"]],
        ]
    }

    /// Adds the poisoned fields to every record of an answer (a query's `records`, a page's, or
    /// a search's `searchRecords`).
    static func poison(_ victim: Int64) -> @Sendable (JSONValue) -> JSONValue {
        { answer in
            guard case .object(var page) = answer else { return answer }
            for key in ["records", "searchRecords"] {
                guard case .array(let records)? = page[key] else { continue }
                page[key] = .array(
                    records.map { record in (record.objectValue?.merging(poisoned(victim)) { $1 }).map(JSONValue.object) ?? record })
            }
            return .object(page)
        }
    }

    /// The server's answers were poisoned; no entry holds a field the server sent as
    /// bookkeeping; the victim kept its local edit.
    static func expectClean(_ harness: SyncHarness, victim: Int64, edit: String, sourceLocation: SourceLocation = #_sourceLocation)
        async throws
    {
        let left = await harness.localForce.faults.scheduledTampers.first?.remaining ?? 0
        #expect(left < 10, "no answer was rewritten", sourceLocation: sourceLocation)
        await harness.localForce.faults.cancelScheduled()
        let entries = try await harness.store.query(.all(soup: "accounts", orderPath: "_soupEntryId", pageSize: 1000))
        for entry in entries {
            for field in ["__create_attempt__", "__update_attempt__", "_soupCreatedDate", "__last_error__"] {
                #expect(entry[field] == nil, "\(field) stored from the server: \(entry)", sourceLocation: sourceLocation)
            }
            #expect(entry["__sync_id__"] != 999_999, "\(entry)", sourceLocation: sourceLocation)
        }
        let kept = try #require(try await harness.store.retrieve([victim], from: "accounts").first, sourceLocation: sourceLocation)
        #expect(kept["Industry"] == .string(edit) && kept["__local__"] == true, "\(kept)", sourceLocation: sourceLocation)
    }

    /// A local entry edited here (dirty), to be aimed at by the server's `_soupEntryId`.
    static func victim(_ harness: SyncHarness) async throws -> Int64 {
        let entry = try await harness.store.createLocally(["Name": "zz local"], objectType: "Account", in: "accounts")
        let id = try #require(entry["_soupEntryId"]?.int64Value)
        try await harness.store.updateLocally(["Industry": "typed here"], entryId: id, in: "accounts")
        return id
    }

    @Test(arguments: [MergeMode.leaveIfChanged, .overwrite, .mergeFields])
    func soqlSyncDownsStoreNoBookkeepingFromTheServer(mode: MergeMode) async throws {
        try await withHarness { harness in
            _ = try await harness.createAccounts(3)
            let victim = try await Self.victim(harness)
            await harness.localForce.faults.scheduleTamper(count: 10, matching: { $0.segments.last == "query" }, Self.poison(victim))
            let target = try SoqlSyncDownTarget(query: "SELECT Id, Name, Industry, LastModifiedDate FROM Account")
            let sync = try await harness.manager.syncDown(target: target, options: SyncOptions(mergeMode: mode), soupName: "accounts")
            #expect(sync.status == .done, "\(sync.error)")
            try await Self.expectClean(harness, victim: victim, edit: "typed here")
        }
    }

    @Test func parentChildrenSyncDownsStoreNoBookkeepingFromTheServer() async throws {
        try await withHarness { harness in
            try await ParentChildrenSyncDownTests.trees(harness, count: 2, contacts: 1)
            let victim = try await Self.victim(harness)
            await harness.localForce.faults.scheduleTamper(count: 10, matching: { $0.segments.last == "query" }, Self.poison(victim))
            let target = ParentChildrenSyncDownTests.target(filter: nil)
            let sync = try await harness.manager.syncDown(target: target, soupName: "accounts")
            #expect(sync.status == .done, "\(sync.error)")
            try await Self.expectClean(harness, victim: victim, edit: "typed here")
        }
    }

    /// Both ways a paging sync writes: a first page ingested whole, and a later pass's
    /// find-or-create (a page record with no local match carries the victim's entry id).
    @Test func pagingSyncsStoreNoBookkeepingAndTakeNoEntryIdFromTheServer() async throws {
        try await withHarness { harness in
            _ = try await harness.createAccounts(3)
            let victim = try await Self.victim(harness)
            let target = try PagingSyncDownTarget(
                url: "/api/Account?key=Name&fields=Name,Industry", keyField: "Name", keyType: .string, pageSize: 10, recordsPath: "records",
                totalSizePath: "totalSize")
            await harness.localForce.faults.scheduleTamper(count: 10, matching: { $0.segments.first == "api" }, Self.poison(victim))
            let first = try await harness.manager.syncDown(
                target: target, options: SyncOptions(mergeMode: .leaveIfChanged), soupName: "accounts", name: "paging")
            #expect(first.status == .done, "\(first.error)")
            try await Self.expectClean(harness, victim: victim, edit: "typed here")
            _ = try await harness.client.create("Account", fields: ["Name": "Account new"])
            await harness.localForce.faults.scheduleTamper(count: 10, matching: { $0.segments.first == "api" }, Self.poison(victim))
            #expect(try await harness.manager.reSync(named: "paging").status == .done)
            try await Self.expectClean(harness, victim: victim, edit: "typed here")
            let names = try await harness.store.query(.all(soup: "accounts", orderPath: "Name", pageSize: 100)).compactMap {
                $0["Name"]?.stringValue
            }
            #expect(names.contains("Account new") && names.contains("zz local"), "\(names)")
        }
    }

    /// The other sync downs: SOSL, MRU, refresh, and a custom target that saves what it
    /// fetched through `SyncContext`.
    @Test(arguments: ["sosl", "mru", "refresh", "custom"])
    func everyOtherSyncDownStoresNoBookkeepingFromTheServer(kind: String) async throws {
        try await withHarness { harness in
            let ids = try await harness.createAccounts(3, prefix: "Rocket")
            let victim = try await Self.victim(harness)
            let target: any SyncDownTarget
            switch kind {
            case "sosl":
                target = SoslSyncDownTarget(query: "FIND {Rocket*} IN NAME FIELDS RETURNING Account(Id, Name, Industry, LastModifiedDate)")
            case "mru":
                _ = try await harness.client.query("SELECT Id FROM Account WHERE Id = '\(ids[0])' FOR VIEW")
                target = MruSyncDownTarget(objectType: "Account", fieldlist: ["Name"])
            case "refresh":
                for id in ids {
                    try await harness.store.create(
                        ["Id": .string(id), "Name": "stale", "attributes": ["type": "Account"], "__local__": false], in: "accounts")
                }
                target = RefreshSyncDownTarget(objectType: "Account", fieldlist: ["Name"], soupName: "accounts", countIdsPerSoql: 2)
            default:
                try harness.store.registerSoup(
                    "industries",
                    indexSpecs: [IndexSpec("Id", .string), IndexSpec("__local__", .string), IndexSpec("__sync_id__", .integer)])
                target = CustomTargetTests.AccountsAndIndustries()
            }
            await harness.localForce.faults.scheduleTamper(
                count: 10, matching: { ["query", "search"].contains($0.segments.last ?? "") }, Self.poison(victim))
            let sync = try await harness.manager.syncDown(target: target, soupName: "accounts")
            #expect(sync.status == .done && sync.recordsFetched >= 1, "\(kind): \(sync.error)")
            try await Self.expectClean(harness, victim: victim, edit: "typed here")
        }
    }
}
