import FastJSON
import Foundation
import SalesforceREST
import SmartStore
import Testing

@testable import LocalForce
@testable import MobileSync

/// Creates whose outcome the client never learned: no duplicate, no adoption of another
/// client's record, no lost edit, and a clear error where the outcome cannot be told.
@Suite struct LostCreateTests {
    static let fields = SyncOptions(fieldlist: ["Name", "Industry"])

    static func isCollectionCreate(_ request: APIRequest) -> Bool { request.method == "POST" && request.segments.last == "sobjects" }

    static func serverNames(_ harness: SyncHarness) async throws -> [String] {
        try await harness.client.allRecords("SELECT Name FROM Account ORDER BY Name").compactMap { $0["Name"]?.stringValue }
    }

    static func entryId(_ record: JSONValue) -> Int64 { record["_soupEntryId"]?.int64Value ?? -1 }

    /// The create lands but its response is lost; the user renames the record offline: one
    /// server record, holding the new name. The rename stays dirty until its update succeeds.
    @Test func offlineEditAfterALostResponseIsAnUpdate() async throws {
        try await withHarness { harness in
            let draft = try await harness.store.createLocally(
                ["Name": "Draft", "Industry": "Media"], objectType: "Account", in: "accounts")
            await harness.localForce.faults.schedule(.dropAfter, matching: Self.isCollectionCreate)
            #expect(try await harness.manager.syncUp(options: Self.fields, soupName: "accounts").status == .failed)
            #expect(try await Self.serverNames(harness) == ["Draft"])
            try await harness.store.updateLocally(["Name": "Final"], entryId: Self.entryId(draft), in: "accounts")
            // The update of the adopted record fails every attempt: the rename must survive, dirty.
            await harness.localForce.faults.schedule(.serverError, count: 4) { $0.method == "PATCH" }
            #expect(try await harness.manager.syncUp(options: Self.fields, soupName: "accounts").status == .failed)
            let pending = try await #require(try harness.store.retrieve([Self.entryId(draft)], from: "accounts").first)
            let serverId = try #require(pending["Id"]?.stringValue)
            #expect(serverId.hasPrefix("001") && pending["Name"] == "Final" && pending["__local__"] == true)
            #expect(
                pending["__locally_updated__"] == true && pending["__locally_created__"] == false && pending["__create_attempt__"] == nil)
            #expect(try await Self.serverNames(harness) == ["Draft"])
            let settled = try await harness.manager.syncUp(options: Self.fields, soupName: "accounts")
            #expect(settled.status == .done && settled.failedRecordCount == 0)
            #expect(try await Self.serverNames(harness) == ["Final"])
            let local = try await #require(try harness.store.retrieve([Self.entryId(draft)], from: "accounts").first)
            #expect(local["Id"]?.stringValue == serverId && local["__local__"] == false)
        }
    }

    /// A create's answer is lost and the server holds no such record (a gateway gave up before
    /// forwarding it; or the request is still running there, its sender killed): the next sync
    /// up holds it back, with a reason, rather than make a second record if it lands after
    /// all. When it lands it is adopted; `resolveCreateAttempt(adopting: nil)` sends one that
    /// never will at once.
    @Test func aCreateThatMayStillLandIsNotSentAgain() async throws {
        try await withHarness { harness in
            let late = try await harness.store.createLocally(["Name": "Late", "Industry": "Media"], objectType: "Account", in: "accounts")
            await harness.localForce.faults.schedule(.gatewayTimeoutBefore, matching: Self.isCollectionCreate)
            _ = try await harness.manager.syncUp(options: Self.fields, soupName: "accounts")
            let held = try await harness.manager.syncUp(options: Self.fields, soupName: "accounts")
            #expect(held.status == .done && held.failedRecordCount == 1, "\(held)")
            #expect(try await Self.serverNames(harness).isEmpty)
            let waiting = try await #require(try harness.store.retrieve([Self.entryId(late)], from: "accounts").first)
            #expect(waiting["__last_error__"]?.stringValue?.contains("CREATE_OUTCOME_PENDING") == true, "\(waiting)")
            #expect(waiting["__local__"] == true && waiting["__create_attempt__"]?["lastSent"]?.int64Value != nil)
            // The request lands after all (the same user, the values sent): adopted, not made twice.
            let landed = try await harness.client.create("Account", fields: ["Name": "Late", "Industry": "Media"])
            let adopted = try await harness.manager.syncUp(options: Self.fields, soupName: "accounts")
            #expect(adopted.status == .done && adopted.failedRecordCount == 0, "\(adopted)")
            #expect(try await Self.serverNames(harness) == ["Late"])
            let local = try await #require(try harness.store.retrieve([Self.entryId(late)], from: "accounts").first)
            #expect(local["Id"]?.stringValue == landed && local["__local__"] == false && local["__last_error__"] == nil)
            // One that never lands: settled by hand, it goes at once.
            let lost = try await harness.store.createLocally(["Name": "Lost", "Industry": "Media"], objectType: "Account", in: "accounts")
            await harness.localForce.faults.schedule(.gatewayTimeoutBefore, matching: Self.isCollectionCreate)
            _ = try await harness.manager.syncUp(options: Self.fields, soupName: "accounts")
            #expect(try await harness.manager.syncUp(options: Self.fields, soupName: "accounts").failedRecordCount == 1)
            try await harness.manager.resolveCreateAttempt(entryId: Self.entryId(lost), soupName: "accounts", adopting: nil)
            let sent = try await harness.manager.syncUp(options: Self.fields, soupName: "accounts")
            #expect(sent.status == .done && sent.failedRecordCount == 0, "\(sent)")
            #expect(try await Self.serverNames(harness) == ["Late", "Lost"])
        }
    }

    /// Another client (same user) creates an account with the same values; 1.5 s later our
    /// create fails before reaching the server. The next sync up (``SyncManager/lostCreateWait``
    /// zero: it does not wait for a late landing) creates ours: the other record was created
    /// before our attempt, by the server's clock.
    @Test func failedCreateNeverAdoptsAnEarlierRecord() async throws {
        try await withHarness(lostCreateWait: .zero) { harness in
            let other = try await harness.client.create("Account", fields: ["Name": "Same", "Industry": "Media"])
            try await Task.sleep(for: .milliseconds(1500))
            let mine = try await harness.store.createLocally(["Name": "Same", "Industry": "Media"], objectType: "Account", in: "accounts")
            await harness.localForce.faults.schedule(.dropBefore, matching: Self.isCollectionCreate)
            #expect(try await harness.manager.syncUp(options: Self.fields, soupName: "accounts").status == .failed)
            #expect(try await Self.serverNames(harness) == ["Same"])
            #expect(try await harness.manager.syncUp(options: Self.fields, soupName: "accounts").status == .done)
            #expect(try await Self.serverNames(harness) == ["Same", "Same"])
            let local = try await #require(try harness.store.retrieve([Self.entryId(mine)], from: "accounts").first)
            let id = try #require(local["Id"]?.stringValue)
            #expect(id != other && id.hasPrefix("001") && local["__local__"] == false)
        }
    }

    /// The lost create landed, and so did another client's record with the same values, after
    /// our attempt: two candidates for one attempt. Nothing is guessed: the record gets a
    /// CREATE_OUTCOME_UNKNOWN error and is not sent until the app settles it.
    @Test func moreCandidatesThanAttemptsIsAnErrorUntilSettled() async throws {
        try await withHarness { harness in
            let first = try await harness.store.createLocally(["Name": "Twin", "Industry": "Media"], objectType: "Account", in: "accounts")
            let second = try await harness.store.createLocally(
                ["Name": "Twin", "Industry": "Retail"], objectType: "Account", in: "accounts")
            await harness.localForce.faults.schedule(.dropAfter, matching: Self.isCollectionCreate)
            #expect(try await harness.manager.syncUp(options: Self.fields, soupName: "accounts").status == .failed)
            let elsewhere = try await harness.client.createRecords([
                ["attributes": ["type": "Account"], "Name": "Twin", "Industry": "Media"],
                ["attributes": ["type": "Account"], "Name": "Twin", "Industry": "Retail"],
            ]).compactMap(\.id)
            let sync = try await harness.manager.syncUp(options: Self.fields, soupName: "accounts")
            #expect(sync.status == .done && sync.failedRecordCount == 2)
            #expect(try await harness.client.query("SELECT COUNT() FROM Account").totalSize == 4)
            for record in try await harness.store.retrieve([Self.entryId(first), Self.entryId(second)], from: "accounts") {
                let error = try #require(record["__last_error__"]?.stringValue)
                #expect(error.contains("CREATE_OUTCOME_UNKNOWN") && error.contains("2 records created by this user"), "\(error)")
                #expect(LocalFields.isLocalId(record["Id"]?.stringValue) && record["__create_attempt__"] != nil)
            }
            // Left alone, it stays so; settled, it syncs: one adopts a server record, one is created again.
            #expect(try await harness.manager.syncUp(options: Self.fields, soupName: "accounts").failedRecordCount == 2)
            try await harness.manager.resolveCreateAttempt(entryId: Self.entryId(first), soupName: "accounts", adopting: elsewhere[0])
            try await harness.manager.resolveCreateAttempt(entryId: Self.entryId(second), soupName: "accounts", adopting: nil)
            await #expect(throws: SyncError.noCreateAttempt(soup: "accounts", entryId: Self.entryId(first))) {
                try await harness.manager.resolveCreateAttempt(entryId: Self.entryId(first), soupName: "accounts", adopting: nil)
            }
            let settled = try await harness.manager.syncUp(options: Self.fields, soupName: "accounts")
            #expect(settled.status == .done && settled.failedRecordCount == 0)
            #expect(try await harness.client.query("SELECT COUNT() FROM Account").totalSize == 5)
            let records = try await harness.store.retrieve([Self.entryId(first), Self.entryId(second)], from: "accounts")
            #expect(records.first?["Id"]?.stringValue == elsewhere[0])
            #expect(
                records.allSatisfy {
                    $0["__local__"] == false && $0["__last_error__"] == nil && !LocalFields.isLocalId($0["Id"]?.stringValue)
                })
        }
    }

    /// The user edits a record while its create is on the wire: the record takes the server id
    /// and keeps the edit, dirty; the next sync up sends it.
    @Test func editWhileTheCreateIsOnTheWireIsKept() async throws {
        try await withHarness { harness in
            let record = try await harness.store.createLocally(
                ["Name": "Before", "Industry": "Media"], objectType: "Account", in: "accounts")
            let store = harness.store
            await harness.localForce.faults.observe { request, moment in
                guard moment == .received, Self.isCollectionCreate(request) else { return }
                _ = try? store.updateLocally(["Name": "During"], entryId: Self.entryId(record), in: "accounts")
            }
            #expect(try await harness.manager.syncUp(options: Self.fields, soupName: "accounts").status == .done)
            await harness.localForce.faults.observe(nil)
            let local = try await #require(try harness.store.retrieve([Self.entryId(record)], from: "accounts").first)
            #expect(local["Name"] == "During" && local["__local__"] == true && local["__locally_updated__"] == true)
            #expect(try await Self.serverNames(harness) == ["Before"])
            #expect(try await harness.manager.syncUp(options: Self.fields, soupName: "accounts").status == .done)
            #expect(try await Self.serverNames(harness) == ["During"])
            await #expect(try harness.store.retrieve([Self.entryId(record)], from: "accounts").first?["__local__"] == false)
        }
    }

    /// The lost create comes down with a resync before the next sync up: the sync down's copy
    /// is folded into the record, not created again.
    @Test func lostCreateBroughtDownByAResyncIsNotCreatedAgain() async throws {
        try await withHarness { harness in
            let target = try SoqlSyncDownTarget(query: "SELECT Id, Name, Industry, LastModifiedDate FROM Account")
            #expect(try await harness.manager.syncDown(target: target, soupName: "accounts", name: "accounts").status == .done)
            let record = try await harness.store.createLocally(
                ["Name": "Landed", "Industry": "Media"], objectType: "Account", in: "accounts")
            await harness.localForce.faults.schedule(.dropAfter, matching: Self.isCollectionCreate)
            #expect(try await harness.manager.syncUp(options: Self.fields, soupName: "accounts").status == .failed)
            #expect(try await harness.manager.reSync(named: "accounts").status == .done)
            await #expect(try harness.store.count(.all(soup: "accounts", pageSize: 1)) == 2) // the record and the server's copy
            #expect(try await harness.manager.syncUp(options: Self.fields, soupName: "accounts").status == .done)
            #expect(try await Self.serverNames(harness) == ["Landed"])
            let local = try harness.localRecords()
            #expect(local.count == 1 && local.values.first?["_soupEntryId"]?.int64Value == Self.entryId(record))
            #expect(local.values.first?["__local__"] == false)
        }
    }

    /// Two attempts sent different values, and the server record of one holds the values of
    /// both (one set is a subset of the other): neither is adopted by guesswork.
    @Test func aRecordMatchingAttemptsWithDifferentValuesIsNotTakenTwice() async throws {
        try await withHarness { harness in
            let short = try await harness.store.createLocally(["Name": "Overlap"], objectType: "Account", in: "accounts")
            let long = try await harness.store.createLocally(
                ["Name": "Overlap", "Industry": "Media"], objectType: "Account", in: "accounts")
            await harness.localForce.faults.schedule(.dropAfter, matching: Self.isCollectionCreate)
            #expect(try await harness.manager.syncUp(options: Self.fields, soupName: "accounts").status == .failed)
            let sync = try await harness.manager.syncUp(options: Self.fields, soupName: "accounts")
            #expect(sync.failedRecordCount == 2)
            let records = try await harness.store.retrieve([Self.entryId(short), Self.entryId(long)], from: "accounts")
            #expect(
                records.allSatisfy {
                    LocalFields.isLocalId($0["Id"]?.stringValue)
                        && $0["__last_error__"]?.stringValue?.contains("CREATE_OUTCOME_UNKNOWN") == true
                })
            #expect(try await harness.client.query("SELECT COUNT() FROM Account").totalSize == 2)
        }
    }

    /// An edit made while the sync up asks the server about a lost create is kept and sent.
    @Test func editDuringReconciliationIsKept() async throws {
        try await withHarness { harness in
            let record = try await harness.store.createLocally(
                ["Name": "Draft", "Industry": "Media"], objectType: "Account", in: "accounts")
            await harness.localForce.faults.schedule(.dropAfter, matching: Self.isCollectionCreate)
            #expect(try await harness.manager.syncUp(options: Self.fields, soupName: "accounts").status == .failed)
            let store = harness.store
            await harness.localForce.faults.observe { request, moment in
                guard moment == .received, request.parameter("q")?.contains("CreatedById") == true else { return }
                _ = try? store.updateLocally(["Name": "Edited while checked"], entryId: Self.entryId(record), in: "accounts")
            }
            #expect(try await harness.manager.syncUp(options: Self.fields, soupName: "accounts").status == .done)
            await harness.localForce.faults.observe(nil)
            #expect(try await Self.serverNames(harness) == ["Edited while checked"])
            await #expect(try harness.store.retrieve([Self.entryId(record)], from: "accounts").first?["__local__"] == false)
        }
    }

    /// The record-at-a-time targets reconcile the same way: lost create, offline edit, one record.
    @Test(arguments: ["single", "batch"]) func recordAtATimeTargets(kind: String) async throws {
        try await withHarness { harness in
            let target: any SyncUpTarget = kind == "single" ? SingleRecordSyncUpTarget() : BatchSyncUpTarget()
            let record = try await harness.store.createLocally(
                ["Name": "Draft", "Industry": "Media"], objectType: "Account", in: "accounts")
            await harness.localForce.faults.schedule(.dropAfter) {
                $0.method == "POST" && ["Account", "composite"].contains($0.segments.last)
            }
            #expect(try await harness.manager.syncUp(target: target, options: Self.fields, soupName: "accounts").status == .failed)
            try await harness.store.updateLocally(["Name": "Final"], entryId: Self.entryId(record), in: "accounts")
            #expect(try await harness.manager.syncUp(target: target, options: Self.fields, soupName: "accounts").status == .done)
            #expect(try await Self.serverNames(harness) == ["Final"])
        }
    }

    /// One sync up of a soup at a time: a second waits for the first (it would otherwise take
    /// the first's creates in flight for lost ones), then runs.
    @Test func oneSyncUpPerSoup() async throws {
        try await withHarness { harness in
            try await harness.store.createLocally(["Name": "Slow"], objectType: "Account", in: "accounts")
            await harness.localForce.faults.configure(rate: 0, latency: .milliseconds(400))
            let manager = harness.manager
            let first = Task { try await manager.syncUp(options: Self.fields, soupName: "accounts") }
            while try await manager.syncStatus(id: 1)?.status != .running { try await Task.sleep(for: .milliseconds(10)) }
            let second = try await manager.syncUp(options: Self.fields, soupName: "accounts")
            let firstState = try await first.value
            #expect(firstState.isDone && second.isDone && second.startTime >= firstState.endTime)
            #expect(try await harness.client.query("SELECT COUNT() FROM Account").totalSize == 1)
        }
    }
}
