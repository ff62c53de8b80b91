import FastJSON
import Foundation
import SalesforceREST
import SmartStore
import Testing

@testable import LocalForce
@testable import MobileSync

/// MERGE_FIELDS end to end: both directions, against LocalForce over HTTP, as a table of what
/// each side changed since the last sync.
@Suite struct MergeFieldsTests {
    static let merge = SyncOptions(mergeMode: .mergeFields, fieldlist: ["Name", "Description", "Industry"])
    static let targets: [any SyncUpTarget] = [CollectionSyncUpTarget(), BatchSyncUpTarget(), SingleRecordSyncUpTarget()]

    /// What happens to one record.
    struct Row: Sendable {
        let label: String
        let local: [String: JSONValue]? // nil: deleted locally
        let server: [String: JSONValue]? // nil: deleted on the server
        /// After the sync: the record on both sides (nil: a conflict of `kind` on `fields`).
        let result: [String: JSONValue]?
        let kind: SyncConflict.Kind?
        let fields: [String]
    }

    static let rows: [Row] = [
        Row(
            label: "disjoint fields", local: ["Name": "local"], server: ["Description": "server"],
            result: ["Name": "local", "Description": "server", "Industry": "Energy"], kind: nil, fields: []),
        Row(
            label: "the same field to the same value", local: ["Name": "same"], server: ["Name": "same"],
            result: ["Name": "same", "Industry": "Energy"], kind: nil, fields: []),
        Row(
            label: "several fields, one side each and one on both to the same value",
            local: ["Name": "same", "Industry": "Media"], server: ["Name": "same", "Description": "server"],
            result: ["Name": "same", "Industry": "Media", "Description": "server"], kind: nil, fields: []),
        Row(
            label: "the same field to different values", local: ["Name": "local", "Industry": "Media"],
            server: ["Name": "server", "Description": "server"], result: nil, kind: .changedOnBothSides, fields: ["Name"]),
        Row(label: "deleted here, changed there", local: nil, server: ["Name": "server"], result: nil, kind: .deletedLocally, fields: []),
        Row(label: "changed here, deleted there", local: ["Name": "local"], server: nil, result: nil, kind: .deletedOnServer, fields: []),
    ]

    /// Accounts `Account 00000…` (Industry Energy) synced down with their dates in MERGE_FIELDS
    /// mode; then a second later, so later writes get later dates.
    static func world(_ harness: SyncHarness, count: Int) async throws -> [String] {
        let ids = try await harness.createAccounts(count)
        let down = try await harness.manager.syncDown(
            target: try SoqlSyncDownTarget(query: "SELECT Id, Name, Description, Industry, LastModifiedDate FROM Account"),
            options: merge, soupName: "accounts", name: "down")
        #expect(down.status == .done)
        try await Task.sleep(for: .milliseconds(1050))
        return ids
    }

    static func change(_ harness: SyncHarness, _ rows: [Row], ids: [String]) async throws {
        for (row, id) in zip(rows, ids) {
            let entry = try harness.localEntryId(id)
            if let local = row.local {
                try await harness.store.updateLocally(local, entryId: entry, in: "accounts")
            } else {
                try await harness.store.deleteLocally(entryId: entry, in: "accounts")
            }
            if let server = row.server {
                try await harness.client.update("Account", id: id, fields: .object(server))
            } else {
                try await harness.client.delete("Account", id: id)
            }
        }
    }

    static func check(_ harness: SyncHarness, _ rows: [Row], ids: [String], label: String) async throws {
        let conflicts = try await harness.manager.conflicts(soup: "accounts")
        let local = try harness.localRecords()
        for (row, id) in zip(rows, ids) {
            let entry = try harness.localEntryId(id)
            if let result = row.result {
                let server = try await harness.client.retrieve("Account", id: id, fields: ["Name", "Description", "Industry"])
                for (field, value) in result {
                    #expect(server[field] == value, "\(label), \(row.label): server \(field)")
                    #expect(local[id]?[field] == value, "\(label), \(row.label): local \(field)")
                }
                #expect(local[id]?["__local__"] == false, "\(label), \(row.label): left dirty")
            } else {
                let conflict = conflicts.first { $0.entryId == entry }
                #expect(
                    conflict?.kind == row.kind && conflict?.fields == row.fields, "\(label), \(row.label): \(String(describing: conflict))")
                #expect(local[id]?["__local__"] == true, "\(label), \(row.label): not kept dirty")
                // Nothing lost on either side.
                if let server = row.server {
                    let remote = try await harness.client.retrieve("Account", id: id, fields: ["Name"])
                    #expect(remote["Name"] == server["Name"] ?? "Account 00000", "\(label), \(row.label)")
                    #expect(conflict?.server?["Name"] == remote["Name"])
                }
                if let mine = row.local { #expect(local[id]?["Name"] == mine["Name"] ?? local[id]?["Name"]) }
            }
        }
        #expect(conflicts.count == rows.filter { $0.result == nil }.count, "\(label)")
    }

    /// Sync up: the local side merged with the server's, for each target.
    @Test(arguments: 0..<targets.count)
    func syncUp(targetIndex: Int) async throws {
        try await withHarness { harness in
            let ids = try await Self.world(harness, count: Self.rows.count)
            try await Self.change(harness, Self.rows, ids: ids)
            let up = try await harness.manager.syncUp(target: Self.targets[targetIndex], options: Self.merge, soupName: "accounts")
            #expect(up.status == .done && up.failedRecordCount == 0, "\(up.error)")
            #expect(up.conflictCount == Self.rows.filter { $0.result == nil }.count)
            try await Self.check(harness, Self.rows, ids: ids, label: "sync up \(targetIndex)")
        }
    }

    /// Sync down first: the server's changes merged into the dirty records (they stay dirty with
    /// what is still theirs to send); then a sync up sends only that.
    @Test func syncDownThenUp() async throws {
        try await withHarness { harness in
            let ids = try await Self.world(harness, count: Self.rows.count)
            try await Self.change(harness, Self.rows, ids: ids)
            let down = try await harness.manager.reSync(named: "down")
            #expect(down.status == .done && down.conflictCount == 2, "\(down)") // a server delete is seen on the way up
            var local = try harness.localRecords()
            #expect(local[ids[0]]?["Name"] == "local" && local[ids[0]]?["Description"] == "server" && local[ids[0]]?["__local__"] == true)
            #expect(local[ids[1]]?["__local__"] == false) // equal to the server's version: nothing left to send
            let conflict = try await harness.manager.conflicts(soup: "accounts").first { $0.kind == .changedOnBothSides }
            #expect(conflict?.fields == ["Name"] && conflict?.server?["Description"] == "server")
            let requests = harness.client.requestCount
            let up = try await harness.manager.syncUp(options: Self.merge, soupName: "accounts")
            #expect(up.conflictCount == 3 && up.failedRecordCount == 0, "\(up)")
            #expect(harness.client.requestCount > requests)
            try await Self.check(harness, Self.rows, ids: ids, label: "down then up")
            local = try harness.localRecords()
            #expect(local[ids[2]]?["Description"] == "server")
        }
    }

    /// Parent/children: a tree whose parent changed on both sides on different fields, and a
    /// child changed here, merges and goes up; a tree whose parent changed on both sides on the
    /// same field is held, its parent in conflict and its dirty child held with it, both counted.
    @Test func parentChildrenTrees() async throws {
        try await withHarness { harness in
            let (accounts, contacts) = try await ParentChildrenSyncDownTests.trees(harness, count: 2, contacts: 2)
            let down = try await harness.manager.syncDown(
                target: ParentChildrenSyncDownTests.target(), options: SyncOptions(mergeMode: .mergeFields), soupName: "accounts")
            #expect(down.status == .done)
            try await Task.sleep(for: .milliseconds(1050))
            for tree in 0..<2 {
                try await harness.store.updateLocally(
                    ["Name": .string("Tree \(tree) local")], entryId: try harness.localEntryId(accounts[tree]), in: "accounts")
                let child = try #require(
                    try await harness.store.lookupSoupEntryId(soup: "contacts", path: "Id", value: .string(contacts[tree][0])))
                try await harness.store.updateLocally(["LastName": .string("C\(tree) local")], entryId: child, in: "contacts")
                try await harness.client.update("Contact", id: contacts[tree][1], fields: ["LastName": .string("C\(tree) server")])
            }
            try await harness.client.update("Account", id: accounts[0], fields: ["Description": "server"])
            try await harness.client.update("Account", id: accounts[1], fields: ["Name": "Tree 1 server"])
            let up = try await harness.manager.syncUp(
                target: ParentChildrenSyncUpTests.accountsTarget(), options: SyncOptions(mergeMode: .mergeFields), soupName: "accounts")
            #expect(up.status == .done && up.failedRecordCount == 0 && up.conflictCount == 2, "\(up)")
            // Tree 0 merged: both changes on the server and here, nothing dirty.
            let account = try await harness.client.retrieve("Account", id: accounts[0], fields: ["Name", "Description"])
            #expect(account["Name"] == "Tree 0 local" && account["Description"] == "server")
            #expect(try harness.localRecords()[accounts[0]]?["Description"] == "server")
            #expect(try await harness.client.retrieve("Contact", id: contacts[0][0], fields: ["LastName"])["LastName"] == "C0 local")
            #expect(try await harness.client.retrieve("Contact", id: contacts[0][1], fields: ["LastName"])["LastName"] == "C0 server")
            // Tree 1 held: the parent in conflict on Name, the child with it; nothing of it sent.
            let conflict = try #require(try await harness.manager.conflicts(soup: "accounts").first)
            #expect(conflict.kind == .changedOnBothSides && conflict.fields == ["Name"] && conflict.server?["Name"] == "Tree 1 server")
            #expect(try await harness.client.retrieve("Contact", id: contacts[1][0], fields: ["LastName"])["LastName"] == "C1-0")
            let heldChild = try #require(
                try await harness.store.query(.exact(soup: "contacts", path: "Id", key: .string(contacts[1][0]), pageSize: 1)).first)
            #expect(heldChild["__local__"] == true && heldChild["__last_error__"]?.stringValue?.contains("HELD_BY_TREE") == true)
            #expect(try await harness.store.dirtyEntryIds(soup: "contacts").count == 1)
            // Resolved with a merge: the tree goes up.
            var merged = conflict.local
            merged["Name"] = "Tree 1 merged"
            try await harness.manager.resolveConflict(entryId: conflict.entryId, soup: "accounts", keeping: .merged(merged))
            let again = try await harness.manager.syncUp(
                target: ParentChildrenSyncUpTests.accountsTarget(), options: SyncOptions(mergeMode: .mergeFields), soupName: "accounts")
            #expect(again.conflictCount == 0 && again.failedRecordCount == 0, "\(again)")
            #expect(try await harness.client.retrieve("Account", id: accounts[1], fields: ["Name"])["Name"] == "Tree 1 merged")
            #expect(try await harness.client.retrieve("Contact", id: contacts[1][0], fields: ["LastName"])["LastName"] == "C1 local")
            #expect(try await harness.store.dirtyEntryIds(soup: "contacts").isEmpty)
        }
    }
}
