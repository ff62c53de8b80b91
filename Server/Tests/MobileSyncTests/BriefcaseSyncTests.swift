import FastJSON
import Foundation
import MobileSyncSDKCompat
import SalesforceREST
import SmartStore
import Testing

@testable import LocalForce
@testable import MobileSync

/// Briefcase sync down: priming records (several pages) → collection retrieves → a soup per type.
@Suite struct BriefcaseSyncTests {
    static let rules = [BriefcaseRule(object: "Account", condition: "Industry = 'Energy'"), BriefcaseRule(object: "Contact")]

    static func target() throws -> BriefcaseSyncDownTarget {
        try BriefcaseSyncDownTarget(
            infos: [
                BriefcaseObjectInfo(objectType: "Account", soupName: "accounts", fieldlist: ["Name", "Industry"]),
                BriefcaseObjectInfo(objectType: "Contact", soupName: "contacts", fieldlist: ["LastName"]),
            ],
            countIdsPerRetrieve: 500)
    }

    static func setUp(_ harness: SyncHarness) async throws -> (accounts: [String], contacts: [String]) {
        try harness.store.registerSoup(
            "contacts",
            indexSpecs: [
                IndexSpec("Id", .string), IndexSpec("LastName", .string),
                IndexSpec("__local__", .string), IndexSpec("__sync_id__", .integer),
            ])
        let accounts = try await harness.createAccounts(2100) // Energy: in the briefcase
        _ = try await harness.createAccounts(50, prefix: "Bank").count // re-typed below: not in it
        let banks = try await harness.client.query("SELECT Id FROM Account WHERE Name LIKE 'Bank%'").records().compactMap {
            $0["Id"]?.stringValue
        }
        _ = try await harness.client.updateRecords(
            banks.map { ["attributes": ["type": "Account"], "Id": .string($0), "Industry": "Banking"] })
        var contacts: [String] = []
        for start in stride(from: 0, to: 300, by: 200) {
            contacts += try await harness.client.createRecords(
                (start..<min(300, start + 200)).map {
                    ["attributes": ["type": "Contact"], "LastName": .string("Contact \($0)")]
                }
            ).compactMap(\.id)
        }
        return (accounts, contacts)
    }

    @Test func syncDownResyncAndGhostsAcrossSoups() async throws {
        try await withHarness(briefcaseRules: Self.rules) { harness in
            let (accounts, contacts) = try await Self.setUp(harness)
            let progress = SyncHarness.Progress()
            let sync = try await harness.manager.syncDown(target: try Self.target(), soupName: "accounts", name: "briefcase") {
                progress.record($0)
            }
            #expect(sync.status == .done, "\(sync.error)")
            #expect(sync.totalSize == 2400 && sync.pagesFetched == 2 && sync.recordsFetched == 2400)
            #expect(progress.trace == ["RUNNING 0 -1", "RUNNING 0 2400", "RUNNING 83 2400", "DONE 100 2400"])
            #expect(try harness.localRecords().count == 2100)
            await #expect(try harness.store.count(.all(soup: "contacts", pageSize: 1)) == 300)
            let contact = try await #require(
                try harness.store.query(.exact(soup: "contacts", path: "Id", key: .string(contacts[7]), pageSize: 1)).first)
            #expect(contact["LastName"] == "Contact 7" && contact["__local__"] == false && contact["__sync_id__"] == .int(sync.id))

            // Server changes: 3 accounts and 2 contacts updated, 1 account added, 1 account leaves the briefcase, 1 contact deleted.
            _ = try await harness.client.updateRecords(
                accounts.prefix(3).map { ["attributes": ["type": "Account"], "Id": .string($0), "Name": "Renamed"] })
            _ = try await harness.client.updateRecords(
                contacts.suffix(2).map { ["attributes": ["type": "Contact"], "Id": .string($0), "LastName": "Renamed"] })
            _ = try await harness.client.create("Account", fields: ["Name": "New", "Industry": "Energy"])
            try await harness.client.update("Account", id: accounts[10], fields: ["Industry": "Banking"])
            try await harness.client.delete("Contact", id: contacts[0])
            let resync = try await harness.manager.reSync(named: "briefcase")
            #expect(resync.status == .done && resync.totalSize == 6 && resync.recordsFetched == 6, "\(resync.totalSize) \(resync.error)")
            #expect(try harness.localRecords().values.filter { $0["Name"] == "Renamed" }.count == 3)
            await #expect(try harness.store.count(.exact(soup: "contacts", path: "LastName", key: "Renamed", pageSize: 10)) == 2)
            #expect(try harness.localRecords().count == 2101)

            #expect(try await harness.manager.cleanResyncGhosts(named: "briefcase") == 2)
            let remaining = try harness.localRecords()
            #expect(remaining[accounts[10]] == nil && remaining.count == 2100)
            await #expect(try harness.store.count(.all(soup: "contacts", pageSize: 1)) == 299)
        }
    }

    @Test func leaveIfChangedKeepsLocalEditsInEverySoup() async throws {
        try await withHarness(briefcaseRules: Self.rules) { harness in
            let (accounts, contacts) = try await Self.setUp(harness)
            let options = SyncOptions(mergeMode: .leaveIfChanged)
            try await harness.manager.syncDown(target: try Self.target(), options: options, soupName: "accounts", name: "briefcase")
            _ = try await harness.store.updateLocally(["Name": "Mine"], entryId: try harness.localEntryId(accounts[0]), in: "accounts")
            let contactEntry = try await harness.store.lookupSoupEntryId(soup: "contacts", path: "Id", value: .string(contacts[0])) ?? -1
            _ = try await harness.store.updateLocally(["LastName": "Mine"], entryId: contactEntry, in: "contacts")
            try await harness.client.update("Account", id: accounts[0], fields: ["Name": "Theirs"])
            try await harness.client.update("Contact", id: contacts[0], fields: ["LastName": "Theirs"])
            try await harness.client.update("Account", id: accounts[1], fields: ["Name": "Theirs"])
            let resync = try await harness.manager.reSync(named: "briefcase")
            #expect(resync.status == .done)
            let local = try harness.localRecords()
            #expect(local[accounts[0]]?["Name"] == "Mine" && local[accounts[1]]?["Name"] == "Theirs")
            await #expect(try harness.store.retrieve([contactEntry], from: "contacts").first?["LastName"] == "Mine")
        }
    }

    @Test func configAndBadSetups() async throws {
        try await withHarness(briefcaseRules: Self.rules) { harness in
            let json = try Self.target().json
            let again = try #require(try harness.manager.targets.syncDownTarget(json) as? BriefcaseSyncDownTarget)
            #expect(again.infos == (try Self.target()).infos && again.countIdsPerRetrieve == 500)
            #expect(throws: SyncError.self) { try BriefcaseSyncDownTarget(infos: [], countIdsPerRetrieve: 10) }
            #expect(throws: SyncError.self) {
                try harness.manager.targets.syncDownTarget(["type": "briefcase", "infos": [["sobjectType": "Account"]]])
            }
            // A soup that does not exist fails the sync before anything is fetched.
            let failed = try await harness.manager.syncDown(target: try Self.target(), soupName: "accounts")
            #expect(failed.status == .failed && failed.error.contains("contacts"), "\(failed.error)")
        }
    }
}
