import FastJSON
import Foundation
import SalesforceREST
import SmartStore
import Testing

@testable import LocalForce
@testable import MobileSync

@Suite struct SyncUpTests {
    static let fields = SyncOptions(fieldlist: ["Name", "Industry", "Description"])

    static func syncDown(_ harness: SyncHarness) async throws {
        try await harness.manager.syncDown(
            target: try SoqlSyncDownTarget(query: "SELECT Id, Name, Industry, Description FROM Account"),
            soupName: "accounts", name: "down")
    }

    /// Scenario 20: creates get server ids, updates and deletes reach the server, created-then-deleted never does.
    @Test func createUpdateDelete() async throws {
        try await withHarness { harness in
            let ids = try await harness.createAccounts(3)
            try await Self.syncDown(harness)
            let created = try await harness.store.createLocally(
                ["Name": "Fresh", "Industry": "Media"], objectType: "Account", in: "accounts")
            let transient = try await harness.store.createLocally(["Name": "Never sent"], objectType: "Account", in: "accounts")
            try await harness.store.deleteLocally(entryId: transient["_soupEntryId"]?.int64Value ?? -1, in: "accounts")
            try await harness.store.updateLocally(
                ["Description": "updated here"], entryId: try harness.localEntryId(ids[0]), in: "accounts")
            try await harness.store.deleteLocally(entryId: try harness.localEntryId(ids[1]), in: "accounts")
            let requestsBefore = harness.client.requestCount
            let progress = SyncHarness.Progress()
            let sync = try await harness.manager.syncUp(options: Self.fields, soupName: "accounts") { progress.record($0) }
            #expect(progress.trace == ["RUNNING 0 -1", "RUNNING 0 4", "DONE 100 4"])
            #expect(sync.status == .done && sync.failedRecordCount == 0)
            // One create, one update, one delete call; before the create, the server's time (its Date header);
            // after them, the user's id and one read of what the batch wrote (its modification dates).
            #expect(harness.client.requestCount - requestsBefore == 6)
            let records = try harness.localRecords()
            let newId = try #require(records.values.first { $0["Name"] == "Fresh" }?["Id"]?.stringValue)
            #expect(
                newId.hasPrefix("001") && records[newId]?["__local__"] == false
                    && records[newId]?["_soupEntryId"] == created["_soupEntryId"])
            #expect(records.values.contains { $0["Name"] == "Never sent" } == false)
            #expect(records[ids[1]] == nil && records[ids[0]]?["__locally_updated__"] == false)
            let server = try await harness.client.query("SELECT Id, Name, Description FROM Account ORDER BY Name").records()
            #expect(server.compactMap { $0["Name"]?.stringValue } == ["Account 00000", "Account 00002", "Fresh"])
            #expect(server.first?["Description"] == "updated here")
            #expect(
                try await harness.client.query("SELECT COUNT() FROM Account WHERE Name = 'Never sent'", includeDeleted: true).totalSize == 0
            )
        }
    }

    /// A record deleted locally that never had an id (written without one, not flagged as
    /// created) is deleted locally only; the other deletes of its batch keep their own results.
    @Test func deleteOfRecordWithoutIdStaysLocal() async throws {
        try await withHarness { harness in
            let orphan = try await harness.store.create(
                [
                    "Name": "No id", "attributes": ["type": "Account"], "__local__": true, "__locally_deleted__": true,
                    "__locally_created__": false, "__locally_updated__": false,
                ], in: "accounts")
            let ids = try await harness.createAccounts(2)
            try await Self.syncDown(harness)
            try await harness.store.deleteLocally(entryId: try harness.localEntryId(ids[1]), in: "accounts")
            let sync = try await harness.manager.syncUp(options: Self.fields, soupName: "accounts")
            #expect(sync.status == .done && sync.failedRecordCount == 0)
            #expect(try await harness.store.retrieve([orphan["_soupEntryId"]?.int64Value ?? -1], from: "accounts").isEmpty)
            let local = try harness.localRecords()
            #expect(local[ids[1]] == nil && local[ids[0]]?["__local__"] == false)
            let remote = try await harness.client.allRecords("SELECT Id FROM Account").compactMap { $0["Id"]?.stringValue }
            #expect(remote == [ids[0]])
        }
    }

    /// Scenario 21: per-record errors do not fail the sync; they stay dirty with __last_error__, and are counted.
    @Test func perRecordErrors() async throws {
        try await withHarness { harness in
            for name in ["Good 1", "Good 2", "Good 3", String(repeating: "x", count: 256), ""] {
                try await harness.store.createLocally(["Name": .string(name)], objectType: "Account", in: "accounts")
            }
            let sync = try await harness.manager.syncUp(options: SyncOptions(fieldlist: ["Name"]), soupName: "accounts")
            #expect(sync.status == .done && sync.failedRecordCount == 2)
            let records = try harness.localRecords()
            let failed = records.values.filter { $0["__local__"] == true }
            #expect(failed.count == 2 && records.values.filter { $0["__local__"] == false }.count == 3)
            let errors = failed.compactMap { $0["__last_error__"]?.stringValue }.joined(separator: " ")
            #expect(errors.contains("Account Name: data value too large"))
            #expect(errors.contains("Required fields are missing: [Name]"))
            #expect(failed.allSatisfy { $0["__locally_created__"] == true })
            // No type: the server's error, same shape.
            try await harness.store.create(
                ["Id": "local_notype", "Name": "x", "__local__": true, "__locally_created__": true], in: "accounts")
            let again = try await harness.manager.syncUp(options: SyncOptions(fieldlist: ["Name"]), soupName: "accounts")
            #expect(again.failedRecordCount == 3)
            let notype = try harness.localRecords()["local_notype"]?["__last_error__"]?.stringValue ?? ""
            #expect(notype.contains("sObject type 'null' is not supported."))
        }
    }

    /// Scenario 22: LEAVE_IF_CHANGED leaves records changed on the server; OVERWRITE pushes them.
    @Test func leaveIfChangedBlockedByRemoteEdit() async throws {
        try await withHarness { harness in
            let ids = try await harness.createAccounts(4)
            try await Self.syncDown(harness)
            for id in ids.prefix(3) {
                try await harness.store.updateLocally(
                    ["Name": .string("local \(id)")], entryId: try harness.localEntryId(id), in: "accounts")
                try await harness.client.update("Account", id: id, fields: ["Name": .string("remote \(id)")])
            }
            try await harness.store.updateLocally(["Name": "local only change"], entryId: try harness.localEntryId(ids[3]), in: "accounts")
            let blocked = try await harness.manager.syncUp(
                options: SyncOptions(mergeMode: .leaveIfChanged, fieldlist: ["Name"]), soupName: "accounts")
            #expect(blocked.status == .done)
            var records = try harness.localRecords()
            for id in ids.prefix(3) { #expect(records[id]?["__locally_updated__"] == true) }
            #expect(records[ids[3]]?["__local__"] == false) // unchanged on the server: pushed
            for id in ids.prefix(3) {
                #expect(try await harness.client.retrieve("Account", id: id, fields: ["Name"])["Name"] == .string("remote \(id)"))
            }
            _ = try await harness.manager.syncUp(options: SyncOptions(mergeMode: .overwrite, fieldlist: ["Name"]), soupName: "accounts")
            records = try harness.localRecords()
            for id in ids.prefix(3) {
                #expect(records[id]?["__local__"] == false)
                #expect(try await harness.client.retrieve("Account", id: id, fields: ["Name"])["Name"] == .string("local \(id)"))
            }
        }
    }

    /// Scenario 23: remote delete vs local update and local delete, both modes.
    @Test func remoteDeletes() async throws {
        try await withHarness { harness in
            let ids = try await harness.createAccounts(4)
            try await Self.syncDown(harness)
            try await harness.store.updateLocally(["Name": "keep me"], entryId: try harness.localEntryId(ids[0]), in: "accounts")
            try await harness.store.deleteLocally(entryId: try harness.localEntryId(ids[1]), in: "accounts")
            try await harness.client.delete("Account", id: ids[0])
            try await harness.client.delete("Account", id: ids[1])
            // LEAVE_IF_CHANGED: the update stays dirty with its old id; the delete is settled.
            _ = try await harness.manager.syncUp(
                options: SyncOptions(mergeMode: .leaveIfChanged, fieldlist: ["Name"]), soupName: "accounts")
            var records = try harness.localRecords()
            #expect(records[ids[0]]?["__local__"] == true && records[ids[1]] == nil)
            // OVERWRITE: recreated with a new id.
            _ = try await harness.manager.syncUp(options: SyncOptions(mergeMode: .overwrite, fieldlist: ["Name"]), soupName: "accounts")
            records = try harness.localRecords()
            #expect(records[ids[0]] == nil)
            let recreated = try #require(records.values.first { $0["Name"] == "keep me" })
            #expect(recreated["Id"]?.stringValue != ids[0] && recreated["__local__"] == false)
            #expect(try await harness.client.retrieve("Account", id: recreated["Id"]?.stringValue ?? "")["Name"] == "keep me")
            // Local delete vs remote update, LEAVE_IF_CHANGED keeps it; OVERWRITE deletes on both sides.
            try await harness.store.deleteLocally(entryId: try harness.localEntryId(ids[2]), in: "accounts")
            try await Task.sleep(for: .milliseconds(5))
            try await harness.client.update("Account", id: ids[2], fields: ["Name": "remote edit"])
            _ = try await harness.manager.syncUp(
                options: SyncOptions(mergeMode: .leaveIfChanged, fieldlist: ["Name"]), soupName: "accounts")
            #expect(try harness.localRecords()[ids[2]]?["__locally_deleted__"] == true)
            _ = try await harness.manager.syncUp(options: SyncOptions(mergeMode: .overwrite, fieldlist: ["Name"]), soupName: "accounts")
            #expect(try harness.localRecords()[ids[2]] == nil)
            await #expect(throws: RestError.self) { _ = try await harness.client.retrieve("Account", id: ids[2]) }
        }
    }

    /// Scenario 27: create and update field lists; external id upsert.
    @Test func fieldListsAndExternalIds() async throws {
        try await withHarness { harness in
            let ids = try await harness.createAccounts(1)
            try await Self.syncDown(harness)
            try await harness.store.createLocally(["Name": "Created", "Description": "not sent"], objectType: "Account", in: "accounts")
            try await harness.store.updateLocally(
                ["Name": "not sent", "Description": "sent"], entryId: try harness.localEntryId(ids[0]), in: "accounts")
            let target = CollectionSyncUpTarget(createFieldlist: ["Name"], updateFieldlist: ["Description"])
            _ = try await harness.manager.syncUp(target: target, soupName: "accounts")
            let server = try await harness.client.query("SELECT Name, Description FROM Account ORDER BY Name").records()
            #expect(server.map { $0["Name"] } == ["Account 00000", "Created"])
            #expect(server.map { $0["Description"] } == ["sent", .null])
            // externalIdFieldName = Id: a "created" record carrying an existing server id updates it.
            try await harness.store.create(
                [
                    "Id": .string(ids[0]), "Name": "Via upsert", "attributes": ["type": "Account"],
                    "__local__": true, "__locally_created__": true,
                ], in: "accounts")
            _ = try await harness.manager.syncUp(
                target: CollectionSyncUpTarget(externalIdFieldName: "Id"), options: SyncOptions(fieldlist: ["Name"]),
                soupName: "accounts")
            #expect(try await harness.client.retrieve("Account", id: ids[0])["Name"] == "Via upsert")
            #expect(try await harness.client.query("SELECT COUNT() FROM Account").totalSize == 2)
        }
    }

    /// Stamps after the first read the server's clock from the monotonic clock: whole seconds,
    /// never later than the server's time.
    @Test func serverClockRunsEarlyInWholeSeconds() async throws {
        try await withHarness { harness in
            let clock = ServerClock(client: harness.client)
            let before = harness.client.requestCount
            let first = try await clock.now()
            #expect(harness.client.requestCount == before + 1)
            for _ in 0..<3 {
                let later = try await clock.now()
                let server = try await harness.client.serverTime()
                #expect(later % 1000 == 0 && later <= server && later >= first - ServerClock.driftMargin - 1000)
            }
            // Only the first reading and the three comparisons went to the server.
            #expect(harness.client.requestCount == before + 4)
        }
    }

    /// Scenario 28: more than one batch (500 created records, 200 per call).
    @Test func manyCreatedRecords() async throws {
        try await withHarness { harness in
            for index in 0..<500 {
                try await harness.store.createLocally(["Name": .string("L\(index)")], objectType: "Account", in: "accounts")
            }
            let progress = SyncHarness.Progress()
            let before = harness.client.requestCount
            let sync = try await harness.manager.syncUp(options: SyncOptions(fieldlist: ["Name"]), soupName: "accounts") {
                progress.record($0)
            }
            #expect(progress.trace == ["RUNNING 0 -1", "RUNNING 0 500", "RUNNING 40 500", "RUNNING 80 500", "DONE 100 500"])
            // Three create calls, each followed by a read of what it wrote; the server's time is read
            // once, before the first, and the user's id once, before the first read.
            #expect(harness.client.requestCount - before == 8 && sync.status == .done, "\(sync.error)")
            #expect(try await harness.client.query("SELECT COUNT() FROM Account").totalSize == 500)
            #expect(
                try harness.localRecords().values.allSatisfy { $0["__local__"] == false && !LocalFields.isLocalId($0["Id"]?.stringValue) })
        }
    }

    /// No fields and no field list: a clear failure, nothing lost.
    @Test func missingFieldListFailsTheSync() async throws {
        try await withHarness { harness in
            try await harness.store.createLocally(["Name": "x"], objectType: "Account", in: "accounts")
            let sync = try await harness.manager.syncUp(soupName: "accounts")
            #expect(sync.status == .failed && sync.error == "No fields specified")
            #expect(try harness.localRecords().values.first?["__local__"] == true)
        }
    }
}
