import FastJSON
import Foundation
import SalesforceREST
import SmartStore
import Testing

@testable import LocalForce
@testable import MobileSync

/// A record edited, synced up, edited again and synced up again reaches the server every time:
/// our own write moves the server's `LastModifiedDate`, and the client learns it, so the next
/// update is not taken for a conflict (LEAVE_IF_CHANGED) and nothing is left dirty.
@Suite struct RepeatedEditTests {
    static let targets: [(String, any SyncUpTarget)] = [
        ("single", SingleRecordSyncUpTarget()), ("batch", BatchSyncUpTarget()), ("collection", CollectionSyncUpTarget()),
        ("idempotent", CollectionSyncUpTarget(idempotencyFieldName: "Mobile_Id__c")),
    ]

    static let cases: [(target: Int, mode: MergeMode, syncDownBetween: Bool)] = (0..<targets.count).flatMap { target in
        [MergeMode.overwrite, .leaveIfChanged].flatMap { mode in [false, true].map { (target, mode, $0) } }
    }

    @Test(arguments: 0..<cases.count)
    func threeEditsEachSyncedUp(caseIndex: Int) async throws {
        let (targetIndex, mode, syncDownBetween) = Self.cases[caseIndex]
        let target = Self.targets[targetIndex].1
        try await withHarness(schema: ReliabilityTests.mobileIdSchema) { harness in
            let ids = try await harness.createAccounts(2)
            let down = try await harness.manager.syncDown(
                target: try SoqlSyncDownTarget(query: "SELECT Id, Name, Description, LastModifiedDate FROM Account"),
                options: SyncOptions(mergeMode: mode), soupName: "accounts", name: "down")
            let created = try await harness.store.createLocally(
                ["Name": "Fresh", "Description": "v0"], objectType: "Account", in: "accounts")
            let entries = [try harness.localEntryId(ids[0]), try harness.localEntryId(ids[1]), created["_soupEntryId"]?.int64Value ?? -1]
            let options = SyncOptions(mergeMode: mode, fieldlist: ["Name", "Description"])
            let up = try await harness.manager.createSyncUp(target: target, options: options, soupName: "accounts", name: "up")
            _ = try await harness.manager.reSync(id: up.id)
            for edit in 1...3 {
                // A later second: conditional updates compare whole seconds.
                try await Task.sleep(for: .milliseconds(1050))
                try await harness.store.updateLocally(["Description": .string("edit \(edit)")], entryId: entries[0], in: "accounts")
                try await harness.store.updateLocally(["Description": .string("edit \(edit)")], entryId: entries[2], in: "accounts")
                let sync = try await harness.manager.reSync(id: up.id)
                let label = "\(Self.targets[targetIndex].0) \(mode.rawValue) down=\(syncDownBetween) edit \(edit)"
                #expect(sync.status == .done && sync.failedRecordCount == 0, "\(label): \(sync.error)")
                if syncDownBetween { _ = try await harness.manager.reSync(id: down.id) }
                let stored = try await harness.store.retrieve(entries, from: "accounts")
                #expect(stored.allSatisfy { $0["__local__"] == false }, "\(label): \(stored)")
                for record in stored where record["_soupEntryId"]?.int64Value != entries[1] {
                    let id = try #require(record["Id"]?.stringValue)
                    let server = try await harness.client.retrieve("Account", id: id, fields: ["Description", "LastModifiedDate"])
                    #expect(server["Description"] == .string("edit \(edit)"), "\(label)")
                    // The local copy knows the server's version it wrote.
                    #expect(
                        record["LastModifiedDate"]?.stringValue.flatMap(SalesforceTime.parse)
                            == server["LastModifiedDate"]?.stringValue.flatMap(SalesforceTime.parse), "\(label)")
                }
            }
            #expect(try await harness.client.query("SELECT COUNT() FROM Account").totalSize == 3)
        }
    }

    /// The same through a parent/children sync up: a parent and a child edited three times, a
    /// tree synced up after each edit, with and without a sync down between.
    @Test(arguments: [MergeMode.overwrite, .leaveIfChanged], [false, true])
    func threeEditsOfATree(mode: MergeMode, syncDownBetween: Bool) async throws {
        try await withHarness { harness in
            let (accounts, contacts) = try await ParentChildrenSyncDownTests.trees(harness, count: 2, contacts: 2)
            let down = try await harness.manager.syncDown(
                target: ParentChildrenSyncDownTests.target(), options: SyncOptions(mergeMode: mode), soupName: "accounts", name: "down")
            #expect(down.status == .done, "\(down.error)")
            let target = ParentChildrenSyncUpTests.accountsTarget()
            let up = try await harness.manager.createSyncUp(
                target: target, options: SyncOptions(mergeMode: mode), soupName: "accounts", name: "up")
            let contactEntry = try #require(
                try await harness.store.lookupSoupEntryId(soup: "contacts", path: "Id", value: .string(contacts[0][1])))
            for edit in 1...3 {
                try await Task.sleep(for: .milliseconds(1050)) // conditional updates compare whole seconds
                try await harness.store.updateLocally(
                    ["Description": .string("edit \(edit)")], entryId: try harness.localEntryId(accounts[0]), in: "accounts")
                try await harness.store.updateLocally(["LastName": .string("edit \(edit)")], entryId: contactEntry, in: "contacts")
                let sync = try await harness.manager.reSync(id: up.id)
                let label = "\(mode.rawValue) down=\(syncDownBetween) edit \(edit)"
                #expect(sync.status == .done && sync.failedRecordCount == 0, "\(label): \(sync.error)")
                if syncDownBetween { _ = try await harness.manager.reSync(id: down.id) }
                #expect(try await harness.store.dirtyEntryIds(soup: "accounts").isEmpty, "\(label)")
                #expect(try await harness.store.dirtyEntryIds(soup: "contacts").isEmpty, "\(label)")
                let account = try await harness.client.retrieve("Account", id: accounts[0], fields: ["Description", "LastModifiedDate"])
                let contact = try await harness.client.retrieve("Contact", id: contacts[0][1], fields: ["LastName", "LastModifiedDate"])
                #expect(account["Description"] == .string("edit \(edit)") && contact["LastName"] == .string("edit \(edit)"), "\(label)")
                let localAccount = try #require(try harness.localRecords()[accounts[0]])
                let localContact = try #require(try await harness.store.retrieve([contactEntry], from: "contacts").first)
                #expect(localAccount["LastModifiedDate"] == account["LastModifiedDate"], "\(label)")
                #expect(localContact["LastModifiedDate"] == contact["LastModifiedDate"], "\(label)")
            }
        }
    }

    /// LEAVE_IF_CHANGED: a tree's request is processed but its response lost (the sync fails);
    /// the parent and a child are edited again; the next sync up settles the earlier write
    /// (the server holds it, by this user) and sends the new edits instead of a conflict.
    @Test func aTreeWhoseResponseWasLost() async throws {
        try await withHarness { harness in
            let (accounts, contacts) = try await ParentChildrenSyncDownTests.trees(harness, count: 1, contacts: 2)
            let leave = SyncOptions(mergeMode: .leaveIfChanged)
            _ = try await harness.manager.syncDown(target: ParentChildrenSyncDownTests.target(), options: leave, soupName: "accounts")
            let contactEntry = try #require(
                try await harness.store.lookupSoupEntryId(soup: "contacts", path: "Id", value: .string(contacts[0][0])))
            let accountEntry = try harness.localEntryId(accounts[0])
            try await Task.sleep(for: .milliseconds(1050)) // conditional updates compare whole seconds
            try await harness.store.updateLocally(["Description": "first"], entryId: accountEntry, in: "accounts")
            try await harness.store.updateLocally(["LastName": "first"], entryId: contactEntry, in: "contacts")
            await harness.localForce.faults.schedule(.dropAfter) { $0.method == "POST" && $0.segments.last == "composite" }
            let target = ParentChildrenSyncUpTests.accountsTarget()
            let lost = try await harness.manager.syncUp(target: target, options: leave, soupName: "accounts", name: "up")
            #expect(lost.status == .failed)
            #expect(try await harness.client.retrieve("Account", id: accounts[0], fields: ["Description"])["Description"] == "first")
            try await Task.sleep(for: .milliseconds(1050))
            try await harness.store.updateLocally(["Description": "second"], entryId: accountEntry, in: "accounts")
            try await harness.store.updateLocally(["LastName": "second"], entryId: contactEntry, in: "contacts")
            let again = try await harness.manager.reSync(named: "up")
            #expect(again.status == .done && again.failedRecordCount == 0, "\(again.error)")
            #expect(try await harness.store.dirtyEntryIds(soup: "accounts").isEmpty)
            #expect(try await harness.store.dirtyEntryIds(soup: "contacts").isEmpty)
            #expect(try await harness.client.retrieve("Account", id: accounts[0], fields: ["Description"])["Description"] == "second")
            #expect(try await harness.client.retrieve("Contact", id: contacts[0][0], fields: ["LastName"])["LastName"] == "second")
        }
    }
}
