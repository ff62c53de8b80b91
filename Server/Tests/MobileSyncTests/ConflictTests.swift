import FastJSON
import Foundation
import SalesforceREST
import SmartStore
import Testing

@testable import LocalForce
@testable import MobileSync

/// A record changed on both sides is never lost and never silent: it carries a typed conflict,
/// is counted, keeps the server's version and its base beside it, and waits for a resolution.
@Suite struct ConflictTests {
    static let targets: [(String, any SyncUpTarget)] = [
        ("single", SingleRecordSyncUpTarget()), ("batch", BatchSyncUpTarget()), ("collection", CollectionSyncUpTarget()),
    ]
    static let leave = SyncOptions(mergeMode: .leaveIfChanged, fieldlist: ["Name", "Description"])

    /// Synced down with dates; returns the server ids.
    static func world(_ harness: SyncHarness, accounts: Int = 3) async throws -> [String] {
        let ids = try await harness.createAccounts(accounts)
        _ = try await harness.manager.syncDown(
            target: try SoqlSyncDownTarget(query: "SELECT Id, Name, Description, LastModifiedDate FROM Account"),
            options: SyncOptions(mergeMode: .leaveIfChanged), soupName: "accounts", name: "down")
        try await Task.sleep(for: .milliseconds(1050)) // later edits get a later second (If-Unmodified-Since)
        return ids
    }

    /// A server edit between two local edits: a conflict, for every target; resolving it
    /// `.local` sends the local record on the next sync up.
    @Test(arguments: 0..<targets.count)
    func aServerEditBetweenTwoLocalEditsIsAConflict(targetIndex: Int) async throws {
        let target = Self.targets[targetIndex].1
        try await withHarness { harness in
            let ids = try await Self.world(harness)
            let entry = try harness.localEntryId(ids[0])
            let conflicts = await harness.manager.conflictUpdates()
            try await harness.store.updateLocally(["Name": "first local"], entryId: entry, in: "accounts")
            let up = try await harness.manager.syncUp(target: target, options: Self.leave, soupName: "accounts", name: "up")
            #expect(up.status == .done && up.conflictCount == 0)
            try await Task.sleep(for: .milliseconds(1050))
            try await harness.client.update("Account", id: ids[0], fields: ["Name": "server", "Description": "from the server"])
            try await harness.store.updateLocally(["Name": "second local"], entryId: entry, in: "accounts")
            let blocked = try await harness.manager.reSync(named: "up")
            #expect(blocked.status == .done && blocked.conflictCount == 1 && blocked.failedRecordCount == 0, "\(blocked)")
            // Typed, with the three versions.
            let conflict = try #require(try await harness.manager.conflicts(soup: "accounts").first)
            #expect(conflict.entryId == entry && conflict.kind == .changedOnBothSides && conflict.fields == ["Name"])
            #expect(conflict.local["Name"] == "second local" && conflict.server?["Name"] == "server")
            #expect(conflict.base?["Name"] == "first local" && conflict.server?["Description"] == "from the server")
            let error = try #require(try harness.localRecords()[ids[0]]?["__last_error__"]?.stringValue)
            #expect(error.contains("SYNC_CONFLICT") && error.contains("CHANGED_ON_BOTH_SIDES"))
            var heard = conflicts.makeAsyncIterator()
            #expect(await heard.next()?.entryId == entry)
            // Nothing lost: the server kept its edit; the record waits, counted on every run.
            #expect(try await harness.client.retrieve("Account", id: ids[0], fields: ["Name"])["Name"] == "server")
            #expect(try await harness.manager.reSync(named: "up").conflictCount == 1)
            // Keeping the local record sends it next time.
            try await harness.manager.resolveConflict(entryId: entry, soup: "accounts", keeping: .local)
            #expect(try await harness.manager.conflicts(soup: "accounts").isEmpty)
            let resolved = try await harness.manager.reSync(named: "up")
            #expect(resolved.conflictCount == 0 && resolved.failedRecordCount == 0, "\(resolved)")
            #expect(try await harness.client.retrieve("Account", id: ids[0], fields: ["Name"])["Name"] == "second local")
            #expect(try await harness.store.dirtyEntryIds(soup: "accounts").isEmpty)
            // A resolution needs a conflict.
            await #expect(throws: SyncError.noConflict(soup: "accounts", entryId: entry)) {
                try await harness.manager.resolveConflict(entryId: entry, soup: "accounts", keeping: .server)
            }
        }
    }

    /// Keeping the server's version, or a merge; deletes against edits in both directions.
    @Test func resolutionsAndDeletesAgainstEdits() async throws {
        try await withHarness { harness in
            let ids = try await Self.world(harness, accounts: 4)
            let entries = try ids.map(harness.localEntryId)
            for (index, entry) in entries.enumerated() {
                if index == 2 {
                    try await harness.store.deleteLocally(entryId: entry, in: "accounts")
                } else {
                    try await harness.store.updateLocally(["Name": .string("local \(index)")], entryId: entry, in: "accounts")
                }
            }
            try await harness.client.update("Account", id: ids[0], fields: ["Name": "server 0"])
            try await harness.client.update("Account", id: ids[1], fields: ["Name": "server 1"])
            try await harness.client.update("Account", id: ids[2], fields: ["Name": "server 2"])
            try await harness.client.delete("Account", id: ids[3])
            let up = try await harness.manager.syncUp(options: Self.leave, soupName: "accounts", name: "up")
            #expect(up.conflictCount == 4, "\(up)")
            let kinds = try await harness.manager.conflicts(soup: "accounts").map { "\($0.entryId):\($0.kind.rawValue)" }
            #expect(
                kinds == [
                    "\(entries[0]):CHANGED_ON_BOTH_SIDES", "\(entries[1]):CHANGED_ON_BOTH_SIDES", "\(entries[2]):DELETED_LOCALLY",
                    "\(entries[3]):DELETED_ON_SERVER",
                ])
            try await harness.manager.resolveConflict(entryId: entries[0], soup: "accounts", keeping: .server)
            var merged = try #require(try harness.localRecords()[ids[1]])
            merged["Name"] = "merged 1"
            try await harness.manager.resolveConflict(entryId: entries[1], soup: "accounts", keeping: .merged(merged))
            try await harness.manager.resolveConflict(entryId: entries[2], soup: "accounts", keeping: .local)
            try await harness.manager.resolveConflict(entryId: entries[3], soup: "accounts", keeping: .local)
            let local = try harness.localRecords()
            #expect(local[ids[0]]?["Name"] == "server 0" && local[ids[0]]?["__local__"] == false && local[ids[0]]?["__last_error__"] == nil)
            let again = try await harness.manager.reSync(named: "up")
            #expect(again.conflictCount == 0 && again.failedRecordCount == 0, "\(again)")
            #expect(try await harness.client.retrieve("Account", id: ids[1], fields: ["Name"])["Name"] == "merged 1")
            await #expect(throws: RestError.self) { _ = try await harness.client.retrieve("Account", id: ids[2]) }
            // The record the server deleted, kept locally: created again, under a new id.
            let recreated = try #require(try harness.localRecords().values.first { $0["Name"] == "local 3" })
            #expect(recreated["Id"]?.stringValue != ids[3] && recreated["__local__"] == false)
            #expect(try await harness.store.dirtyEntryIds(soup: "accounts").isEmpty)
            #expect(try await harness.client.query("SELECT COUNT() FROM Account").totalSize == 3)
        }
    }

    /// A merged record of only the fields merged is merged onto the local record: the id, the
    /// type and the engine's fields stay, and the next sync up sends it (issue 47's ninth
    /// finding: the partial record replaced the entry, and the sync up failed on a null type).
    @Test func aPartialMergedRecordIsMergedOntoTheLocalOne() async throws {
        try await withHarness { harness in
            let ids = try await Self.world(harness, accounts: 1)
            let entry = try harness.localEntryId(ids[0])
            try await harness.store.updateLocally(["Name": "local", "Phone": "555-0100"], entryId: entry, in: "accounts")
            try await harness.client.update("Account", id: ids[0], fields: ["Name": "server"])
            #expect(try await harness.manager.syncUp(options: Self.leave, soupName: "accounts", name: "up").conflictCount == 1)
            // Not an object, or another record's id: refused, the conflict kept.
            await #expect(throws: SyncError.self) {
                try await harness.manager.resolveConflict(entryId: entry, soup: "accounts", keeping: .merged("Acme"))
            }
            await #expect(throws: SyncError.self) {
                try await harness.manager.resolveConflict(
                    entryId: entry, soup: "accounts", keeping: .merged(["Id": "001000000000000AAA", "Name": "x"]))
            }
            #expect(try await harness.manager.conflicts(soup: "accounts").count == 1)
            try await harness.manager.resolveConflict(
                entryId: entry, soup: "accounts", keeping: .merged(["Name": "Acme (merged)", "__local__": false, "attributes": nil]))
            let record = try #require(try harness.localRecords()[ids[0]])
            #expect(record["Id"] == .string(ids[0]) && record["attributes"]?["type"] == "Account")
            #expect(record["Name"] == "Acme (merged)" && record["Phone"] == "555-0100" && record["__local__"] == true)
            let again = try await harness.manager.reSync(named: "up")
            #expect(again.conflictCount == 0 && again.failedRecordCount == 0, "\(again)")
            #expect(try await harness.client.retrieve("Account", id: ids[0], fields: ["Name"])["Name"] == "Acme (merged)")
            #expect(try await harness.store.dirtyEntryIds(soup: "accounts").isEmpty)
        }
    }

    /// A conflict settled as the user saw it: an app edit made after the conflict was read
    /// makes keeping the server refuse (the edit is not discarded unseen); read again, it settles.
    @Test func aConflictSettledAsSeenRefusesAfterANewerEdit() async throws {
        try await withHarness { harness in
            let ids = try await Self.world(harness, accounts: 1)
            let entry = try harness.localEntryId(ids[0])
            try await harness.store.updateLocally(["Name": "local"], entryId: entry, in: "accounts")
            try await harness.client.update("Account", id: ids[0], fields: ["Name": "server"])
            #expect(try await harness.manager.syncUp(options: Self.leave, soupName: "accounts", name: "up").conflictCount == 1)
            let seen = try #require(try await harness.manager.conflicts(soup: "accounts").first)
            try await harness.store.updateLocally(
                ["Description": "typed after the screen showed the conflict"], entryId: entry, in: "accounts")
            await #expect(throws: SmartStoreError.self) { try await harness.manager.resolveConflict(seen, keeping: .server) }
            #expect(try harness.localRecords()[ids[0]]?["Description"] == "typed after the screen showed the conflict")
            let now = try #require(try await harness.manager.conflicts(soup: "accounts").first)
            try await harness.manager.resolveConflict(now, keeping: .local)
            #expect(try await harness.manager.reSync(named: "up").conflictCount == 0)
            let server = try await harness.client.retrieve("Account", id: ids[0], fields: ["Name", "Description"])
            #expect(server["Name"] == "local" && server["Description"] == "typed after the screen showed the conflict")
        }
    }

    /// An OVERWRITE sync up sends records in conflict (local wins) and clears the conflict.
    @Test func anOverwriteSyncUpSettlesConflicts() async throws {
        try await withHarness { harness in
            let ids = try await Self.world(harness, accounts: 1)
            let entry = try harness.localEntryId(ids[0])
            try await harness.store.updateLocally(["Name": "local"], entryId: entry, in: "accounts")
            try await harness.client.update("Account", id: ids[0], fields: ["Name": "server"])
            #expect(try await harness.manager.syncUp(options: Self.leave, soupName: "accounts").conflictCount == 1)
            let overwrite = try await harness.manager.syncUp(options: SyncOptions(fieldlist: ["Name"]), soupName: "accounts")
            #expect(overwrite.conflictCount == 0 && overwrite.failedRecordCount == 0)
            #expect(try await harness.manager.conflicts(soup: "accounts").isEmpty)
            #expect(try await harness.client.retrieve("Account", id: ids[0], fields: ["Name"])["Name"] == "local")
        }
    }
}
