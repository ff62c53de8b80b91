import FastJSON
import Foundation
import SalesforceREST
import SmartStore
import Testing

@testable import LocalForce
@testable import MobileSync

/// Parent/children sync up against LocalForce: one composite request per tree.
@Suite struct ParentChildrenSyncUpTests {
    static func accountsTarget(_ type: RelationshipType = .lookup) -> ParentChildrenSyncUpTarget {
        ParentChildrenSyncUpTarget(
            parent: ParentInfo(objectType: "Account", soupName: "accounts"),
            children: ChildrenInfo(
                objectType: "Contact", objectTypePlural: "Contacts", soupName: "contacts", parentIdFieldName: "AccountId"),
            relationshipType: type, createFieldlist: ["Name", "Description"], updateFieldlist: ["Name", "Description"],
            childrenCreateFieldlist: ["LastName"], childrenUpdateFieldlist: ["LastName"])
    }

    static func contactsSoup(_ harness: SyncHarness) throws {
        try harness.store.registerSoup(
            "contacts",
            indexSpecs: [
                IndexSpec("Id", .string), IndexSpec("LastName", .string), IndexSpec("AccountId", .string),
                IndexSpec("__local__", .string), IndexSpec("__sync_id__", .integer),
            ])
    }

    /// A locally created account with `count` locally created contacts.
    @discardableResult
    static func localTree(_ harness: SyncHarness, name: String, contacts count: Int) throws -> String {
        let account = try harness.store.createLocally(["Name": .string(name)], objectType: "Account", in: "accounts")
        let id = account["Id"]?.stringValue ?? ""
        for index in 0..<count {
            try harness.store.createLocally(
                ["LastName": .string("\(name) contact \(index)"), "AccountId": .string(id)], objectType: "Contact", in: "contacts")
        }
        return id
    }

    static func serverContacts(_ harness: SyncHarness, of account: String) async throws -> [JSONValue] {
        try await harness.client.allRecords("SELECT Id, LastName, AccountId FROM Contact WHERE AccountId = '\(account)'")
    }

    static func localContacts(_ harness: SyncHarness) throws -> [JSONValue] {
        try harness.store.query(.all(soup: "contacts", orderPath: "LastName", pageSize: 100_000))
    }

    /// Scenario 25: a new account and its contacts in one composite call, contacts pointed at the new account.
    @Test func newTreeInOneRequest() async throws {
        try await withHarness { harness in
            try Self.contactsSoup(harness)
            try Self.localTree(harness, name: "New Co", contacts: 3)
            let requests = harness.client.requestCount
            let sync = try await harness.manager.syncUp(target: Self.accountsTarget(), soupName: "accounts")
            #expect(sync.status == .done && sync.totalSize == 1 && sync.failedRecordCount == 0, "\(sync.error)")
            // The tree's composite call; then the user's id and one read per type of what it wrote.
            #expect(harness.client.requestCount - requests == 4)
            let account = try #require(try harness.localRecords().values.first)
            let accountId = try #require(account["Id"]?.stringValue)
            #expect(accountId.hasPrefix("001") && account["__local__"] == false)
            let local = try Self.localContacts(harness)
            #expect(
                local.count == 3
                    && local.allSatisfy {
                        $0["AccountId"] == .string(accountId) && $0["__local__"] == false && $0["Id"]?.stringValue?.hasPrefix("003") == true
                    })
            let server = try await Self.serverContacts(harness, of: accountId)
            #expect(Set(server.compactMap { $0["Id"]?.stringValue }) == Set(local.compactMap { $0["Id"]?.stringValue }))
        }
    }

    /// Scenario 25: contacts created locally under an account the server deleted: OVERWRITE
    /// brings the account back (new id) and the contacts point to it.
    @Test func newChildrenUnderARemotelyDeletedParent() async throws {
        try await withHarness { harness in
            try Self.contactsSoup(harness)
            let old = try await harness.client.create("Account", fields: ["Name": "Gone"])
            try await harness.manager.syncDown(target: ParentChildrenSyncDownTests.target(filter: nil), soupName: "accounts", name: "down")
            for index in 0..<2 {
                try await harness.store.createLocally(
                    ["LastName": .string("Orphan \(index)"), "AccountId": .string(old)], objectType: "Contact", in: "contacts")
            }
            try await harness.client.delete("Account", id: old)
            let lic = try await harness.manager.syncUp(
                target: Self.accountsTarget(), options: SyncOptions(mergeMode: .leaveIfChanged), soupName: "accounts")
            let untouched = try Self.localContacts(harness)
            #expect(lic.status == .done && untouched.allSatisfy { $0["__local__"] == true })
            let sync = try await harness.manager.syncUp(target: Self.accountsTarget(), soupName: "accounts")
            #expect(sync.status == .done && sync.failedRecordCount == 0, "\(sync.error)")
            let account = try #require(try harness.localRecords().values.first)
            let newId = try #require(account["Id"]?.stringValue)
            #expect(newId != old && newId.hasPrefix("001") && account["Name"] == "Gone")
            #expect(try Self.localContacts(harness).allSatisfy { $0["AccountId"] == .string(newId) && $0["__local__"] == false })
            #expect(try await Self.serverContacts(harness, of: newId).count == 2)
        }
    }

    @Test func aHundredTrees() async throws {
        try await withHarness { harness in
            try Self.contactsSoup(harness)
            for index in 0..<100 { try Self.localTree(harness, name: String(format: "Tree %03d", index), contacts: 2) }
            let requests = harness.client.requestCount
            let sync = try await harness.manager.syncUp(target: Self.accountsTarget(), soupName: "accounts")
            #expect(sync.status == .done && sync.totalSize == 100 && sync.failedRecordCount == 0, "\(sync.error)")
            // A composite call per tree; what they wrote is read back once per type for every 200
            // records or so (after the 67th tree, then at the end), after reading the user's id.
            #expect(harness.client.requestCount - requests == 105)
            #expect(try await harness.client.query("SELECT COUNT() FROM Contact WHERE Account.Name LIKE 'Tree%'").totalSize == 200)
            let accounts = try harness.localRecords()
            #expect(accounts.count == 100 && accounts.values.allSatisfy { $0["__local__"] == false })
            #expect(
                try Self.localContacts(harness).allSatisfy {
                    accounts[$0["AccountId"]?.stringValue ?? ""] != nil && $0["__local__"] == false
                })
        }
    }

    /// 200 children: more than one composite request (25 subrequests each); later requests name
    /// the parent's new id.
    @Test func aTreeWithTwoHundredChildren() async throws {
        try await withHarness { harness in
            try Self.contactsSoup(harness)
            try Self.localTree(harness, name: "Big", contacts: 200)
            let requests = harness.client.requestCount
            let sync = try await harness.manager.syncUp(target: Self.accountsTarget(), soupName: "accounts")
            #expect(sync.status == .done && sync.failedRecordCount == 0, "\(sync.error)")
            // Nine composite calls, then the user's id and one read per type of what they wrote.
            #expect(harness.client.requestCount - requests == 12)
            let accountId = try #require(try harness.localRecords().keys.first)
            #expect(try await Self.serverContacts(harness, of: accountId).count == 200)
            #expect(try Self.localContacts(harness).allSatisfy { $0["AccountId"] == .string(accountId) && $0["__local__"] == false })
        }
    }

    /// Creates whose external id is set become upserts (`PATCH …/{field}/{value}`): existing
    /// server records are updated instead of duplicated, parent and children alike.
    @Test func externalIdsTurnCreatesIntoUpserts() async throws {
        try await withHarness { harness in
            try harness.store.registerSoup(
                "invoices", indexSpecs: [IndexSpec("Id", .string), IndexSpec("__local__", .string), IndexSpec("__sync_id__", .integer)])
            try harness.store.registerSoup(
                "lines",
                indexSpecs: [
                    IndexSpec("Id", .string), IndexSpec("Invoice__c", .string), IndexSpec("__local__", .string),
                    IndexSpec("__sync_id__", .integer),
                ])
            let existing = try await harness.client.create("Invoice__c", fields: ["Name": "Old name", "Invoice_Number__c": "INV-1"])
            let existingLine = try await harness.client.create(
                "Invoice_Line__c", fields: ["Name": "Old line", "Line_Key__c": "K-1", "Invoice__c": .string(existing)])
            let invoice = try await harness.store.createLocally(
                ["Name": "New name", "Invoice_Number__c": "INV-1"], objectType: "Invoice__c", in: "invoices")
            let localId = try #require(invoice["Id"]?.stringValue)
            try await harness.store.createLocally(
                ["Name": "New line", "Line_Key__c": "K-1", "Invoice__c": .string(localId)], objectType: "Invoice_Line__c", in: "lines")
            try await harness.store.createLocally(
                ["Name": "Another line", "Line_Key__c": "K-2", "Invoice__c": .string(localId)], objectType: "Invoice_Line__c", in: "lines")
            let target = ParentChildrenSyncUpTarget(
                parent: ParentInfo(objectType: "Invoice__c", soupName: "invoices", externalIdFieldName: "Invoice_Number__c"),
                children: ChildrenInfo(
                    objectType: "Invoice_Line__c", objectTypePlural: "Invoice_Lines__r", soupName: "lines", parentIdFieldName: "Invoice__c",
                    externalIdFieldName: "Line_Key__c"),
                relationshipType: .masterDetail, createFieldlist: ["Name", "Invoice_Number__c"],
                childrenCreateFieldlist: ["Name", "Line_Key__c"])
            let sync = try await harness.manager.syncUp(target: target, soupName: "invoices")
            #expect(sync.status == .done && sync.failedRecordCount == 0, "\(sync.error)")
            await #expect(try harness.store.query(.all(soup: "invoices", pageSize: 5)).first?["Id"] == .string(existing))
            #expect(try await harness.client.query("SELECT COUNT() FROM Invoice__c").totalSize == 1)
            #expect(try await harness.client.retrieve("Invoice__c", id: existing, fields: ["Name"])["Name"] == "New name")
            let lines = try await harness.store.query(.all(soup: "lines", orderPath: "Id", pageSize: 5))
            #expect(lines.contains { $0["Id"] == .string(existingLine) && $0["Invoice__c"] == .string(existing) })
            #expect(try await harness.client.query("SELECT COUNT() FROM Invoice_Line__c WHERE Invoice__c = '\(existing)'").totalSize == 2)
        }
    }

    /// LEAVE_IF_CHANGED with more than 25 changes: each composite request is all-or-none. A
    /// child changed on the server between the check and the second request rolls that request
    /// back (412); what the first request committed is still recorded locally.
    @Test func leaveIfChangedTreeAcrossTwoRequests() async throws {
        try await withHarness { harness in
            try Self.contactsSoup(harness)
            let account = try await harness.client.create("Account", fields: ["Name": "Wide"])
            _ = try await harness.client.createRecords(
                (0..<30).map {
                    ["attributes": ["type": "Contact"], "LastName": .string(String(format: "W%02d", $0)), "AccountId": .string(account)]
                })
            try await harness.manager.syncDown(target: ParentChildrenSyncDownTests.target(filter: nil), soupName: "accounts", name: "down")
            try await Task.sleep(for: .milliseconds(1100)) // If-Unmodified-Since has second precision
            _ = try await harness.store.updateLocally(["Name": "Wide local"], entryId: try harness.localEntryId(account), in: "accounts")
            let children = try await harness.store.query(.all(soup: "contacts", pageSize: 100))
                .sorted { ($0["_soupEntryId"]?.int64Value ?? 0) < ($1["_soupEntryId"]?.int64Value ?? 0) }
            for child in children {
                _ = try await harness.store.updateLocally(
                    ["LastName": .string("\(child["LastName"]?.stringValue ?? "") local")],
                    entryId: child["_soupEntryId"]?.int64Value ?? -1, in: "contacts")
            }
            let late = try #require(children.last?["Id"]?.stringValue)
            let localForce = harness.localForce
            let calls = CallCounter()
            await localForce.faults.observe { request, moment in
                guard moment == .received, request.segments.last == "composite", calls.next() == 1 else { return }
                _ = await localForce.handle(
                    APIRequest(
                        method: "PATCH", path: "/services/data/v66.0/sobjects/Contact/\(late)", query: nil,
                        headers: ["authorization": "Bearer \(SyncHarness.token)", "content-type": "application/json"],
                        body: Array(#"{"LastName": "Theirs"}"#.utf8)))
            }
            let sync = try await harness.manager.syncUp(
                target: Self.accountsTarget(), options: SyncOptions(mergeMode: .leaveIfChanged), soupName: "accounts")
            await localForce.faults.observe(nil)
            #expect(sync.status == .done && sync.failedRecordCount == 0, "\(sync.error)")
            #expect(try harness.localRecords()[account]?["__local__"] == false)
            let after = try Self.localContacts(harness)
            #expect(after.filter { $0["__local__"] == false }.count == 24 && after.filter { $0["__local__"] == true }.count == 6)
            #expect(after.allSatisfy { $0["__last_error__"] == nil })
            #expect(try await harness.client.retrieve("Contact", id: late, fields: ["LastName"])["LastName"] == "Theirs")
            let server = try await Self.serverContacts(harness, of: account)
            #expect(server.filter { $0["LastName"]?.stringValue?.hasSuffix(" local") == true }.count == 24)
            // OVERWRITE settles the rest.
            let overwrite = try await harness.manager.syncUp(target: Self.accountsTarget(), soupName: "accounts")
            #expect(overwrite.status == .done && overwrite.failedRecordCount == 0)
            #expect(try Self.localContacts(harness).allSatisfy { $0["__local__"] == false })
            #expect(try await harness.client.retrieve("Contact", id: late, fields: ["LastName"])["LastName"] != "Theirs")
        }
    }

    @Test func masterDetailParentDeleteCascades() async throws {
        try await withHarness { harness in
            try harness.store.registerSoup(
                "invoices", indexSpecs: [IndexSpec("Id", .string), IndexSpec("__local__", .string), IndexSpec("__sync_id__", .integer)])
            try harness.store.registerSoup(
                "lines",
                indexSpecs: [
                    IndexSpec("Id", .string), IndexSpec("Invoice__c", .string), IndexSpec("__local__", .string),
                    IndexSpec("__sync_id__", .integer),
                ])
            let invoice = try await harness.client.create("Invoice__c", fields: ["Name": "To delete"])
            _ = try await harness.client.createRecords(
                (0..<3).map { ["attributes": ["type": "Invoice_Line__c"], "Name": .string("L\($0)"), "Invoice__c": .string(invoice)] })
            let parent = ParentInfo(objectType: "Invoice__c", soupName: "invoices")
            let children = ChildrenInfo(
                objectType: "Invoice_Line__c", objectTypePlural: "Invoice_Lines__r", soupName: "lines", parentIdFieldName: "Invoice__c")
            try await harness.manager.syncDown(
                target: ParentChildrenSyncDownTarget(
                    parent: parent, parentFieldlist: ["Name"], children: children,
                    childrenFieldlist: ["Name"], relationshipType: .masterDetail),
                soupName: "invoices", name: "down")
            let entry = try await harness.store.lookupSoupEntryId(soup: "invoices", path: "Id", value: .string(invoice)) ?? -1
            _ = try await harness.store.deleteLocally(entryId: entry, in: "invoices")
            let target = ParentChildrenSyncUpTarget(
                parent: parent, children: children, relationshipType: .masterDetail, createFieldlist: ["Name"],
                updateFieldlist: ["Name"], childrenCreateFieldlist: ["Name"], childrenUpdateFieldlist: ["Name"])
            let sync = try await harness.manager.syncUp(target: target, soupName: "invoices")
            #expect(sync.status == .done && sync.failedRecordCount == 0, "\(sync.error)")
            await #expect(try harness.store.count(.all(soup: "invoices", pageSize: 10)) == 0)
            await #expect(try harness.store.count(.all(soup: "lines", pageSize: 10)) == 0)
            #expect(try await harness.client.query("SELECT COUNT() FROM Invoice_Line__c").totalSize == 0)
            #expect(try await harness.client.query("SELECT COUNT() FROM Invoice__c").totalSize == 0)
        }
    }
}
