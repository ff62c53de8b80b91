import FastJSON
import Foundation
import SalesforceREST
import SalesforceWire
import SmartStore
import Testing

@testable import LocalForce
@testable import MobileSync

/// Parent/children sync down (Accounts with their Contacts, LOOKUP; Invoices with their lines,
/// MASTER_DETAIL) against LocalForce.
@Suite struct ParentChildrenSyncDownTests {
    static func target(filter: String? = "Name LIKE 'Tree%'") -> ParentChildrenSyncDownTarget {
        ParentChildrenSyncDownTarget(
            parent: ParentInfo(objectType: "Account", soupName: "accounts"), parentFieldlist: ["Name", "Description"],
            parentSoqlFilter: filter,
            children: ChildrenInfo(
                objectType: "Contact", objectTypePlural: "Contacts", soupName: "contacts", parentIdFieldName: "AccountId"),
            childrenFieldlist: ["LastName"], relationshipType: .lookup)
    }

    /// Accounts `Tree 0…` with `contacts` contacts each (`C<tree>-<n>`), plus one account outside the filter.
    @discardableResult
    static func trees(_ harness: SyncHarness, count: Int, contacts: Int) async throws -> (accounts: [String], contacts: [[String]]) {
        try harness.store.registerSoup(
            "contacts",
            indexSpecs: [
                IndexSpec("Id", .string), IndexSpec("LastName", .string), IndexSpec("AccountId", .string),
                IndexSpec("__local__", .string), IndexSpec("__sync_id__", .integer),
            ])
        let accounts = try await harness.client.createRecords(
            (0..<count).map { ["attributes": ["type": "Account"], "Name": .string("Tree \($0)")] }
        ).compactMap(\.id)
        _ = try await harness.client.create("Account", fields: ["Name": "Outside"])
        var contactIds: [[String]] = []
        for (tree, account) in accounts.enumerated() {
            guard contacts > 0 else {
                contactIds.append([])
                continue
            }
            contactIds.append(
                try await harness.client.createRecords(
                    (0..<contacts).map {
                        ["attributes": ["type": "Contact"], "LastName": .string("C\(tree)-\($0)"), "AccountId": .string(account)]
                    }
                ).compactMap(\.id))
        }
        return (accounts, contactIds)
    }

    static func contacts(_ harness: SyncHarness) throws -> [String: JSONValue] {
        var result: [String: JSONValue] = [:]
        for entry in try harness.store.query(.all(soup: "contacts", orderPath: "Id", pageSize: 10_000)) {
            if let id = entry["Id"]?.stringValue { result[id] = entry }
        }
        return result
    }

    @Test func treesAreSplitIntoTwoSoups() async throws {
        try await withHarness { harness in
            let (accounts, contacts) = try await Self.trees(harness, count: 5, contacts: 3)
            let sync = try await harness.manager.syncDown(target: Self.target(), soupName: "accounts", name: "trees")
            #expect(sync.status == .done && sync.totalSize == 5 && sync.recordsFetched == 20, "\(sync.error)")
            let local = try harness.localRecords()
            #expect(Set(local.keys) == Set(accounts))
            #expect(local.values.allSatisfy { $0["Contacts"] == nil && $0["__local__"] == false && $0["__sync_id__"] == .int(sync.id) })
            let children = try Self.contacts(harness)
            #expect(children.count == 15)
            for (tree, ids) in contacts.enumerated() {
                for id in ids {
                    #expect(children[id]?["AccountId"] == .string(accounts[tree]) && children[id]?["__sync_id__"] == .int(sync.id))
                }
            }
            // The boundary covers parents and children: the newest record is a contact.
            let newest = children.values.compactMap { $0["LastModifiedDate"]?.stringValue.flatMap(SalesforceTime.parse) }.max() ?? 0
            #expect(sync.maxTimeStamp == newest)
        }
    }

    /// The SDK's `testReSyncWithUpdatedChildren`, with the opposite outcome for B: changed
    /// children of an unchanged parent are brought too.
    @Test func resyncBringsChangedChildrenOfUnchangedParents() async throws {
        try await withHarness { harness in
            let (accounts, contacts) = try await Self.trees(harness, count: 3, contacts: 3)
            try await harness.manager.syncDown(target: Self.target(), soupName: "accounts", name: "trees")
            try await harness.client.update("Account", id: accounts[0], fields: ["Description": "A changed"])
            for id in contacts[0].prefix(2) + contacts[1].prefix(2) {
                try await harness.client.update("Contact", id: id, fields: ["LastName": "Changed"])
            }
            let added = try await harness.client.create("Contact", fields: ["LastName": "New under B", "AccountId": .string(accounts[1])])
            let resync = try await harness.manager.reSync(named: "trees")
            #expect(resync.status == .done && resync.totalSize == 1 + 5, "\(resync.totalSize) \(resync.error)")
            #expect(try harness.localRecords()[accounts[0]]?["Description"] == "A changed")
            let children = try Self.contacts(harness)
            #expect((contacts[0].prefix(2) + contacts[1].prefix(2)).allSatisfy { children[$0]?["LastName"] == "Changed" })
            #expect(children[added]?["AccountId"] == .string(accounts[1]) && children.count == 10)
            #expect(children[contacts[2][0]]?["LastName"] == "C2-0")
        }
    }

    @Test func leaveIfChangedSkipsWholeTreesWithADirtyRecord() async throws {
        try await withHarness { harness in
            let (accounts, contacts) = try await Self.trees(harness, count: 3, contacts: 2)
            try await harness.manager.syncDown(
                target: Self.target(), options: SyncOptions(mergeMode: .leaveIfChanged), soupName: "accounts", name: "trees")
            // Tree 0: a local child edit. Tree 1: a local child edit, parent unchanged on the server. Tree 2: clean.
            for id in [contacts[0][0], contacts[1][0]] {
                let entry = try await harness.store.lookupSoupEntryId(soup: "contacts", path: "Id", value: .string(id)) ?? -1
                _ = try await harness.store.updateLocally(["LastName": "Mine"], entryId: entry, in: "contacts")
            }
            for account in [accounts[0], accounts[2]] {
                try await harness.client.update("Account", id: account, fields: ["Description": "Server"])
            }
            for id in [contacts[0][1], contacts[1][1], contacts[2][1]] {
                try await harness.client.update("Contact", id: id, fields: ["LastName": "Server"])
            }
            let resync = try await harness.manager.reSync(named: "trees")
            #expect(resync.status == .done)
            let local = try harness.localRecords()
            let children = try Self.contacts(harness)
            #expect(local[accounts[0]]?["Description"] == .null && children[contacts[0][1]]?["LastName"] == "C0-1") // tree 0 skipped
            #expect(children[contacts[1][1]]?["LastName"] == "C1-1") // tree 1 skipped
            #expect(local[accounts[2]]?["Description"] == "Server" && children[contacts[2][1]]?["LastName"] == "Server")
            #expect(children[contacts[0][0]]?["LastName"] == "Mine" && children[contacts[1][0]]?["__local__"] == true)
        }
    }

    @Test func ghostCleanupRemovesParentsAndTheirChildren() async throws {
        try await withHarness { harness in
            let (accounts, contacts) = try await Self.trees(harness, count: 4, contacts: 2)
            try await harness.manager.syncDown(target: Self.target(), soupName: "accounts", name: "trees")
            try await harness.client.delete("Contact", id: contacts[0][0]) // a child
            try await harness.client.delete("Account", id: accounts[1]) // a parent (lookups cleared)
            try await harness.client.update("Account", id: accounts[2], fields: ["Name": "Renamed out"]) // leaves the filter
            #expect(try await harness.manager.cleanResyncGhosts(named: "trees") == 2 + 5)
            #expect(Set(try harness.localRecords().keys) == [accounts[0], accounts[3]])
            #expect(Set(try Self.contacts(harness).keys) == [contacts[0][1], contacts[3][0], contacts[3][1]])
        }
    }

    @Test func masterDetailTreeWithManyChildren() async throws {
        try await withHarness { harness in
            try harness.store.registerSoup(
                "invoices", indexSpecs: [IndexSpec("Id", .string), IndexSpec("__local__", .string), IndexSpec("__sync_id__", .integer)])
            try harness.store.registerSoup(
                "lines",
                indexSpecs: [
                    IndexSpec("Id", .string), IndexSpec("Invoice__c", .string), IndexSpec("__local__", .string),
                    IndexSpec("__sync_id__", .integer),
                ])
            let invoice = try await harness.client.create("Invoice__c", fields: ["Name": "Big"])
            let small = try await harness.client.create("Invoice__c", fields: ["Name": "Small"])
            for start in stride(from: 0, to: 450, by: 200) {
                _ = try await harness.client.createRecords(
                    (start..<min(450, start + 200)).map {
                        ["attributes": ["type": "Invoice_Line__c"], "Name": .string("Line \($0)"), "Invoice__c": .string(invoice)]
                    })
            }
            _ = try await harness.client.create("Invoice_Line__c", fields: ["Name": "Only line", "Invoice__c": .string(small)])
            let target = ParentChildrenSyncDownTarget(
                parent: ParentInfo(objectType: "Invoice__c", soupName: "invoices"), parentFieldlist: ["Name"],
                children: ChildrenInfo(
                    objectType: "Invoice_Line__c", objectTypePlural: "Invoice_Lines__r", soupName: "lines", parentIdFieldName: "Invoice__c"),
                childrenFieldlist: ["Name"], relationshipType: .masterDetail)
            let requests = harness.client.requestCount
            let sync = try await harness.manager.syncDown(target: target, soupName: "invoices", name: "invoices")
            #expect(sync.status == .done && sync.recordsFetched == 2 + 451, "\(sync.error)")
            #expect(harness.client.requestCount - requests > 1, "the 450 lines come in more than one nested page")
            await #expect(try harness.store.count(.exact(soup: "lines", path: "Invoice__c", key: .string(invoice), pageSize: 10)) == 450)
            // Deleting a master-detail parent on the server removes its lines; ghost cleanup follows.
            try await harness.client.delete("Invoice__c", id: invoice)
            #expect(try await harness.manager.cleanResyncGhosts(named: "invoices") == 1 + 450)
            await #expect(try harness.store.count(.all(soup: "lines", pageSize: 10)) == 1)
        }
    }

    @Test func targetJSONMatchesTheSDKKeys() throws {
        let target = Self.target()
        let again = try ParentChildrenSyncDownTarget(json: target.json)
        #expect(again.json == target.json && again.children == target.children && again.relationshipType == .lookup)
        #expect(
            target.query(maxTimeStamp: -1)
                == "SELECT Id, LastModifiedDate, Name, Description, (SELECT Id, LastModifiedDate, LastName FROM Contacts) FROM Account WHERE (Name LIKE 'Tree%') ORDER BY LastModifiedDate"
        )
        #expect(
            target.query(maxTimeStamp: 1_700_000_000_000)
                == "SELECT Id, LastModifiedDate, Name, Description, (SELECT Id, LastModifiedDate, LastName FROM Contacts WHERE LastModifiedDate > 2023-11-14T22:13:20.000Z) FROM Account WHERE LastModifiedDate > 2023-11-14T22:13:20.000Z AND (Name LIKE 'Tree%') ORDER BY LastModifiedDate"
        )
        #expect(throws: SyncError.self) {
            try ParentChildrenSyncDownTarget(json: ["type": "parent_children", "parent": ["sobjectType": "Account"]])
        }
        #expect(throws: SyncError.self) {
            var json = target.json
            json["relationshipType"] = "SIBLING"
            return try ParentChildrenSyncDownTarget(json: json)
        }
    }
}
