import FastJSON
import Foundation
import SalesforceREST
import SalesforceWire
import SmartStore
import Testing

@testable import LocalForce
@testable import MobileSync

@Suite struct GhostsAndExtensionsTests {
    /// Scenario 19: two syncs into one soup; each cleans only its own ghosts.
    @Test func ghostsOfSeveralSyncs() async throws {
        try await withHarness { harness in
            let ids = try await harness.createAccounts(6)
            let first = try await harness.manager.syncDown(
                target: try SoqlSyncDownTarget(
                    query: "SELECT Id, Name FROM Account WHERE Name IN ('Account 00000', 'Account 00001', 'Account 00002')"),
                soupName: "accounts", name: "first")
            let second = try await harness.manager.syncDown(
                target: try SoqlSyncDownTarget(query: "SELECT Id, Name FROM Account WHERE Name >= 'Account 00002'"), soupName: "accounts",
                name: "second")
            // Account 2 was written last by the second sync: it belongs to it.
            for index in [0, 2, 5] { try await harness.client.delete("Account", id: ids[index]) }
            #expect(try await harness.manager.cleanResyncGhosts(id: first.id) == 1)
            var records = try harness.localRecords()
            #expect(records[ids[0]] == nil && records[ids[2]] != nil && records[ids[5]] != nil)
            #expect(try await harness.manager.cleanResyncGhosts(id: second.id) == 2)
            records = try harness.localRecords()
            #expect(Set(records.keys) == [ids[1], ids[3], ids[4]])
        }
    }

    /// State updates are also published as an AsyncStream.
    @Test func updatesStream() async throws {
        try await withHarness { harness in
            try await harness.createAccounts(3)
            let stream = await harness.manager.updates()
            let collector = Task { () -> [String] in
                var seen: [String] = []
                for await state in stream {
                    seen.append("\(state.status.rawValue) \(state.progress)")
                    if state.status == .done { break }
                }
                return seen
            }
            try await harness.manager.syncDown(target: try SoqlSyncDownTarget(query: "SELECT Id, Name FROM Account"), soupName: "accounts")
            let seen = await collector.value
            #expect(seen.first == "NEW 0" || seen.first == "RUNNING 0")
            #expect(seen.last == "DONE 100")
        }
    }

    /// A custom sync down target: records from anywhere, registered under its own type name.
    struct FixedTarget: FetchingSyncDownTarget {
        var records: [JSONValue]
        var json: JSONValue { ["type": "fixed", "records": .array(records)] }
        var idFieldName: String { "Id" }
        var modificationDateFieldName: String { "LastModifiedDate" }
        func fetch(client: RestClient, maxTimeStamp: Int64, continuation: String?) async throws -> SyncDownPage {
            SyncDownPage(body: JSONValue.array(records).jsonBytes, recordsPath: "", totalSize: records.count, next: nil)
        }
        func remoteIds(client: RestClient, localIds: [String]) async throws -> Set<String> {
            Set(records.compactMap { $0["Id"]?.stringValue })
        }
    }

    @Test func customTarget() async throws {
        try await withHarness { harness in
            harness.manager.targets.register(syncDown: "fixed") { json in FixedTarget(records: json["records"]?.arrayValue ?? []) }
            let target = FixedTarget(records: [
                ["Id": "x1", "Name": "One", "LastModifiedDate": "2026-01-01T00:00:00.000+0000"],
                ["Id": "x2", "Name": "Two", "LastModifiedDate": "2026-01-02T00:00:00.000+0000"],
            ])
            let sync = try await harness.manager.syncDown(target: target, soupName: "accounts", name: "fixed")
            #expect(sync.status == .done && sync.totalSize == 2)
            #expect(sync.maxTimeStamp == SalesforceTime.parse("2026-01-02T00:00:00.000+0000"))
            #expect(try harness.localRecords().keys.sorted() == ["x1", "x2"])
            #expect(try await harness.manager.reSync(named: "fixed").status == .done)
        }
    }
}
