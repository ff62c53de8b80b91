import FastJSON
import Foundation
import SalesforceREST
import SmartStore
import Testing

@testable import LocalForce
@testable import MobileSync

/// Sync with a plain paging REST API (LocalForce's `/api/{object}`), keyed by Name so inserts
/// can land anywhere in the order.
@Suite struct PagingSyncTests {
    static func target(pageSize: Int = 10, url: String = "/api/Account?key=Name&fields=Name,Industry") throws -> PagingSyncDownTarget {
        try PagingSyncDownTarget(
            url: url, keyField: "Name", keyType: .string, pageSize: pageSize, recordsPath: "records", totalSizePath: "totalSize")
    }

    /// Server accounts: Name → Industry (every page), and their ids by name.
    static func server(_ harness: SyncHarness) async throws -> (records: [String: String], ids: [String: String]) {
        var records: [String: String] = [:]
        var ids: [String: String] = [:]
        for record in try await harness.client.allRecords("SELECT Id, Name, Industry FROM Account") {
            guard let name = record["Name"]?.stringValue else { continue }
            records[name] = record["Industry"]?.stringValue ?? ""
            ids[name] = record["Id"]?.stringValue
        }
        return (records, ids)
    }

    /// Local entries: Name → Industry, and how many entries there are (duplicates show).
    static func local(_ harness: SyncHarness) throws -> (records: [String: String], count: Int) {
        let entries = try harness.store.query(.all(soup: "accounts", orderPath: "Name", pageSize: 100_000))
        var records: [String: String] = [:]
        for entry in entries { if let name = entry["Name"]?.stringValue { records[name] = entry["Industry"]?.stringValue ?? "" } }
        return (records, entries.count)
    }

    static func expectEqual(_ harness: SyncHarness, _ label: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let server = try await Self.server(harness).records
        let local = try Self.local(harness)
        #expect(
            local.records == server && local.count == server.count, "\(label): local \(local.count), server \(server.count)",
            sourceLocation: sourceLocation)
    }

    /// Local entries by Name.
    static func entries(_ harness: SyncHarness) throws -> [String: JSONValue] {
        var entries: [String: JSONValue] = [:]
        for entry in try harness.store.query(.all(soup: "accounts", orderPath: "Name", pageSize: 100_000)) {
            if let name = entry["Name"]?.stringValue { entries[name] = entry }
        }
        return entries
    }

    static func create(_ harness: SyncHarness, _ names: [String], industry: String = "Energy") async throws {
        for start in stride(from: 0, to: names.count, by: 200) {
            _ = try await harness.client.createRecords(
                names[start..<min(names.count, start + 200)].map {
                    ["attributes": ["type": "Account"], "Name": .string($0), "Industry": .string(industry)]
                })
        }
    }

    static func delete(_ harness: SyncHarness, _ names: [String]) async throws {
        let ids = try await Self.server(harness).ids
        for name in names { try await harness.client.delete("Account", id: ids[name] ?? "missing") }
    }

    static func update(_ harness: SyncHarness, _ names: [String], industry: String) async throws {
        let ids = try await Self.server(harness).ids
        for name in names {
            try await harness.client.update("Account", id: ids[name] ?? "missing", fields: ["Industry": .string(industry)])
        }
    }

    /// N0100, N0200, … N5000: room for inserts anywhere.
    static let names = (1...50).map { String(format: "N%04d", $0 * 100) }

    @Test func soupEqualsServerAfterChangesAnywhereInThePages() async throws {
        try await withHarness { harness in
            try await Self.create(harness, Self.names)
            let first = try await harness.manager.syncDown(target: try Self.target(), soupName: "accounts", name: "paging")
            #expect(
                first.status == .done && first.pagesFetched == 6 && first.recordsFetched == 50 && first.totalSize == 50, "\(first.error)")
            try await Self.expectEqual(harness, "full sync")

            let steps: [(String, (SyncHarness) async throws -> Void)] = [
                (
                    "inserts at the start, inside a page, at a page boundary and at the end",
                    {
                        try await Self.create($0, ["N0000", "N0150", "N1050", "N9999"])
                    }
                ),
                ("updates at the start, middle and end", { try await Self.update($0, ["N0000", "N2500", "N9999"], industry: "Media") }),
                (
                    "deletes at the start of a page, inside one, at the end of one and the very last",
                    {
                        try await Self.delete($0, ["N1000", "N1500", "N2000", "N9999"])
                    }
                ),
                (
                    "deletes across a page boundary, with an insert and an update",
                    {
                        try await Self.delete($0, ["N2900", "N3000", "N3100"])
                        try await Self.create($0, ["N3050"])
                        try await Self.update($0, ["N3200"], industry: "Retail")
                    }
                ),
                (
                    "the last page empties",
                    {
                        let count = try await Self.server($0).records.count
                        let names = try await Self.server($0).records.keys.sorted()
                        try await Self.delete($0, Array(names.suffix(count % 10))) // a multiple of the page size remains
                    }
                ),
                ("everything deleted", { try await Self.delete($0, Array(try await Self.server($0).records.keys)) }),
                ("records again after nothing", { try await Self.create($0, ["A1", "B2", "C3"]) }),
            ]
            for (label, change) in steps {
                try await change(harness)
                let sync = try await harness.manager.reSync(named: "paging")
                #expect(sync.status == .done, "\(label): \(sync.error)")
                try await Self.expectEqual(harness, label)
            }
        }
    }

    @Test func deletesAndUpdatesCountAndSkipWhatDidNotChange() async throws {
        try await withHarness { harness in
            try await Self.create(harness, Self.names)
            try await harness.manager.syncDown(target: try Self.target(), soupName: "accounts", name: "paging")
            let before = try Self.entries(harness)
            try await Self.delete(harness, ["N0500", "N1000", "N1100"]) // inside, end of page 0, start of page 1
            try await Self.update(harness, ["N4000"], industry: "Media")
            let sync = try await harness.manager.reSync(named: "paging")
            #expect(sync.recordsDeleted == 3)
            let after = try Self.entries(harness)
            // Unchanged records were not rewritten; the changed one kept its entry id.
            let unchanged = before.filter { $0.key != "N4000" && after[$0.key] != nil }
            #expect(unchanged.count == 46 && unchanged.allSatisfy { after[$0.key] == $0.value })
            #expect(after["N4000"]?["Industry"] == "Media" && after["N4000"]?["_soupEntryId"] == before["N4000"]?["_soupEntryId"])
        }
    }

    @Test func leaveIfChangedNeverDeletesOrOverwritesDirtyRecords() async throws {
        try await withHarness { harness in
            try await Self.create(harness, Self.names)
            let options = SyncOptions(mergeMode: .leaveIfChanged)
            try await harness.manager.syncDown(target: try Self.target(), options: options, soupName: "accounts", name: "paging")
            let byName = try Self.entries(harness).mapValues { $0["_soupEntryId"]?.int64Value ?? -1 }
            _ = try await harness.store.updateLocally(["Industry": "Mine"], entryId: byName["N0100"] ?? -1, in: "accounts")
            _ = try await harness.store.updateLocally(["Industry": "Mine too"], entryId: byName["N0200"] ?? -1, in: "accounts")
            _ = try await harness.store.deleteLocally(entryId: byName["N0300"] ?? -1, in: "accounts")
            try await Self.delete(harness, ["N0100", "N0300", "N0400"])
            try await Self.update(harness, ["N0200"], industry: "Theirs")
            let sync = try await harness.manager.reSync(named: "paging")
            #expect(sync.status == .done && sync.recordsDeleted == 1)
            let local = try Self.local(harness).records
            #expect(local["N0100"] == "Mine" && local["N0200"] == "Mine too" && local["N0300"] != nil && local["N0400"] == nil)
        }
    }

    /// Rows inserted or deleted before the sync's position while it pages: the pass notices,
    /// keeps what it cannot be sure of, and a second pass ends equal to the server.
    @Test(arguments: ["insert", "delete"]) func pagesShiftingDuringTheSync(_ change: String) async throws {
        try await withHarness { harness in
            try await Self.create(harness, Self.names)
            try await harness.manager.syncDown(target: try Self.target(), soupName: "accounts", name: "paging")
            try await Self.delete(harness, ["N2500"]) // a gap inside page 2 to be deleted locally
            let calls = CallCounter()
            let localForce = harness.localForce
            let ids = try await Self.server(harness).ids
            await localForce.faults.observe { request, moment in
                guard moment == .processed, request.segments.first == "api", request.parameter("pageIndex") == "2", calls.next() == 1 else {
                    return
                }
                let headers = ["authorization": "Bearer \(SyncHarness.token)"]
                if change == "insert" {
                    _ = try? await localForce.insert([["Name": "N0050", "Industry": "Energy"]], of: "Account")
                } else {
                    _ = await localForce.handle(
                        APIRequest(
                            method: "DELETE", path: "/services/data/v66.0/sobjects/Account/\(ids["N0100"] ?? "")",
                            query: nil, headers: headers, body: []))
                }
            }
            let sync = try await harness.manager.reSync(named: "paging")
            await localForce.faults.observe(nil)
            #expect(sync.status == .done, "\(sync.error)")
            #expect(sync.pagesFetched > 6, "a second pass: \(sync.pagesFetched) pages")
            try await Self.expectEqual(harness, "pages shifted by an \(change)")
        }
    }

    @Test func tenThousandRecordsWithOnePercentChanged() async throws {
        try await withHarness { harness in
            let names = (0..<10_000).map { String(format: "R%06d", $0 * 10) }
            try await Self.create(harness, names)
            let target = try PagingSyncDownTarget(
                url: "/api/Account?key=Name&fields=Name,Industry", keyField: "Name", keyType: .string,
                pageSize: 500, recordsPath: "records")
            let full = try await harness.manager.syncDown(target: target, soupName: "accounts", name: "paging")
            #expect(full.status == .done && full.recordsFetched == 10_000)
            try await Self.update(harness, stride(from: 0, to: 10_000, by: 200).map { names[$0] }, industry: "Media") // 50
            try await Self.delete(harness, stride(from: 7, to: 10_000, by: 400).map { names[$0] }) // 25
            try await Self.create(harness, stride(from: 3, to: 10_000, by: 400).map { names[$0] + "5" }) // 25
            let requests = harness.client.requestCount
            let resync = try await harness.manager.reSync(named: "paging")
            #expect(resync.status == .done && resync.recordsDeleted == 25 && resync.recordsFetched == 10_000)
            #expect(harness.client.requestCount - requests <= 21 + 25, "one request per page, plus a check per page with a gap")
            try await Self.expectEqual(harness, "1% changed")
        }
    }

    @Test func integerKeysBareArraysTemplatesAndGhostCleanup() async throws {
        try await withHarness(localIndex: .integer) { harness in
            try harness.store.registerSoup(
                "byEmployees",
                indexSpecs: [
                    IndexSpec("NumberOfEmployees", .integer), IndexSpec("__sync_id__", .integer),
                    IndexSpec("__local__", .integer),
                ])
            for count in [30, 5, 1000, 200, 12] {
                _ = try await harness.client.create(
                    "Account", fields: ["Name": .string("E\(count)"), "NumberOfEmployees": .int(Int64(count))])
            }
            let target = try PagingSyncDownTarget(
                url:
                    "/api/Account?key=NumberOfEmployees&fields=NumberOfEmployees,Name&envelope=false&pageIndex={pageIndex}&pageSize={pageSize}",
                keyField: "NumberOfEmployees", keyType: .integer, pageSize: 2)
            let sync = try await harness.manager.syncDown(target: target, soupName: "byEmployees", name: "employees")
            #expect(sync.status == .done && sync.recordsFetched == 5, "\(sync.error)")
            let keys = try await harness.store.query(.all(soup: "byEmployees", orderPath: "NumberOfEmployees", pageSize: 10)).compactMap {
                $0["NumberOfEmployees"]?.int64Value
            }
            #expect(keys == [5, 12, 30, 200, 1000])
            // 12 < 200 < 30 as strings: a numeric key must be declared as an integer (and it is compared as one).
            let ids = try await Self.server(harness).ids
            try await harness.client.delete("Account", id: ids["E200"] ?? "")
            #expect(try await harness.manager.cleanResyncGhosts(named: "employees") == 1)
            await #expect(try harness.store.count(.all(soup: "byEmployees", pageSize: 10)) == 4)
        }
    }

    /// An absolute URL (another server, as far as the client knows): no bearer token unless the
    /// target's own headers carry one; pages numbered from 1; progress per page.
    @Test func absoluteURLWithItsOwnAuthorizationAndPagesFromOne() async throws {
        try await withHarness { harness in
            try await Self.create(harness, Self.names)
            let url = harness.baseURL.absoluteString + "/api/Account?key=Name&fields=Name,Industry&base=1"
            let anonymous = try PagingSyncDownTarget(
                url: url, keyField: "Name", keyType: .string, pageSize: 20, firstPageIndex: 1, recordsPath: "records")
            #expect(anonymous.sendsAccessToken == false)
            let refused = try await harness.manager.syncDown(target: anonymous, soupName: "accounts")
            #expect(refused.status == .failed && refused.error.contains("401"), "\(refused.error)")
            let target = try PagingSyncDownTarget(
                url: url, keyField: "Name", keyType: .string, pageSize: 20, firstPageIndex: 1, recordsPath: "records",
                totalSizePath: "totalSize", headers: ["Authorization": "Bearer \(SyncHarness.token)"])
            let progress = SyncHarness.Progress()
            let sync = try await harness.manager.syncDown(target: target, soupName: "accounts", name: "absolute") { progress.record($0) }
            #expect(sync.status == .done && sync.pagesFetched == 3, "\(sync.error)")
            #expect(
                progress.all.map { "\($0.status.rawValue) \($0.pagesFetched) \($0.recordsFetched) \($0.progress)" }
                    == ["RUNNING 0 0 0", "RUNNING 1 20 40", "RUNNING 2 40 80", "DONE 3 50 100"])
            try await Self.expectEqual(harness, "absolute URL")
        }
    }

    @Test func badPagesAndSetupsFailClearly() async throws {
        try await withHarness { harness in
            try await Self.create(harness, ["A", "B"])
            func failure(_ target: PagingSyncDownTarget, soup: String = "accounts") async throws -> String {
                let sync = try await harness.manager.syncDown(target: target, soupName: soup)
                #expect(sync.status == .failed)
                return sync.error
            }
            // The key has another type than declared.
            let wrongType = try PagingSyncDownTarget(
                url: "/api/Account?key=Name", keyField: "Name", keyType: .integer, recordsPath: "records")
            #expect(try await failure(wrongType).contains("has no integer Name"))
            // The records are not where the target says.
            let wrongPath = try PagingSyncDownTarget(
                url: "/api/Account?key=Name", keyField: "Name", keyType: .string, recordsPath: "data.items")
            #expect(try await failure(wrongPath).contains("no records array at 'data.items'"))
            // A soup without an index on the key.
            try harness.store.registerSoup("plain", indexSpecs: [IndexSpec("__sync_id__", .integer), IndexSpec("__local__", .integer)])
            let fine = try Self.target()
            #expect(try await failure(fine, soup: "plain").contains("needs an index on Name"))
            // Configuration mistakes are caught when the target is made.
            #expect(throws: SyncError.self) { try PagingSyncDownTarget(url: "ftp://x", keyField: "Id", keyType: .string) }
            #expect(throws: SyncError.self) { try PagingSyncDownTarget(url: "/api/Account", keyField: "a.b", keyType: .string) }
            #expect(throws: SyncError.self) { try PagingSyncDownTarget(url: "/api/Account", keyField: "Id", keyType: .string, pageSize: 0) }
            // Nothing was written by the failed syncs.
            await #expect(try harness.store.count(.all(soup: "accounts", pageSize: 10)) == 0)
        }
    }

    @Test func fromUsersyncsJSONToAFinishedSync() async throws {
        try await withHarness { harness in
            try await Self.create(harness, ["A", "B", "C"])
            let file = #"""
                {"syncs": [{"syncName": "accountsByName", "syncType": "syncDown", "soupName": "accounts",
                            "target": {"type": "paging", "url": "/api/Account?key=Name&fields=Name,Industry", "keyField": "Name",
                                       "keyType": "string", "pageSize": 2, "recordsPath": "records", "totalSizePath": "totalSize"},
                            "options": {"mergeMode": "LEAVE_IF_CHANGED"}}]}
                """#
            let report = try await harness.manager.apply(try SyncsConfig(data: Array(file.utf8)))
            #expect(report.created == ["accountsByName"] && report.errors.isEmpty)
            let sync = try await harness.manager.reSync(named: "accountsByName")
            #expect(sync.status == .done && sync.pagesFetched == 2 && sync.options.mergeMode == .leaveIfChanged)
            try await Self.expectEqual(harness, "from usersyncs.json")
        }
    }

    @Test func usersyncsEntryRoundTrips() throws {
        let target = try PagingSyncDownTarget(json: [
            "type": "paging", "url": "https://api.example.com/users", "keyField": "userId",
            "keyType": "integer", "pageSize": 50, "firstPageIndex": 1, "recordsPath": "data",
            "headers": ["X-Api-Key": "k"],
        ])
        #expect(target.sendsAccessToken == false && target.firstPageIndex == 1 && target.headers == ["X-Api-Key": "k"])
        let again = try PagingSyncDownTarget(json: target.json)
        #expect(again.json == target.json)
        #expect(throws: SyncError.self) {
            try PagingSyncDownTarget(json: ["type": "paging", "url": "/x", "keyField": "k", "keyType": "date"])
        }
        #expect(throws: SyncError.self) { try PagingSyncDownTarget(json: ["type": "paging", "keyField": "k"]) }
    }
}
