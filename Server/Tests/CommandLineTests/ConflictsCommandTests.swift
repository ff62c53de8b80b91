import FastJSON
import Foundation
import MobileSync
import SmartStore
import Testing

/// Conflicts a sync up left, as the command line shows them.
@Suite struct ConflictsCommandTests {
    /// `msync conflicts` lists them (a table, or JSON lines with the three versions); `msync
    /// syncs` counts them.
    @Test func theCommandLineListsThem() async throws {
        let harness = try await CommandLineOrg()
        defer { Task { await harness.stop() } }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("msync-conflicts-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("store.sqlite").path
        let ids = try await harness.createAccounts(2)
        do {
            let store = try SmartStore(path: path)
            try store.registerSoup("accounts", indexSpecs: [IndexSpec("Id", .string), IndexSpec("__local__", .string)])
            let manager = try SyncManager(store: store, client: harness.client)
            _ = try await manager.syncDown(
                target: try SoqlSyncDownTarget(query: "SELECT Id, Name, LastModifiedDate FROM Account"), soupName: "accounts")
            try await Task.sleep(for: .milliseconds(1050))
            for id in ids {
                let entry = try #require(try await store.lookupSoupEntryId(soup: "accounts", path: "Id", value: .string(id)))
                try await store.updateLocally(["Name": "here"], entryId: entry, in: "accounts")
            }
            try await harness.client.update("Account", id: ids[0], fields: ["Name": "there"])
            try await harness.client.delete("Account", id: ids[1])
            let up = try await manager.syncUp(
                options: SyncOptions(mergeMode: .leaveIfChanged, fieldlist: ["Name", "Description"]), soupName: "accounts", name: "up")
            #expect(up.conflictCount == 2)
        }
        let (status, json) = try await Msync.run(["conflicts", "--store", path, "--format", "json"])
        #expect(status == 0, "\(json)")
        let lines = try InspectCommandTests.jsonLines(json)
        #expect(lines.map { $0["kind"] } == ["CHANGED_ON_BOTH_SIDES", "DELETED_ON_SERVER"], "\(json)")
        #expect(
            lines.first?["fields"] == ["Name"] && lines.first?["local"]?["Name"] == "here" && lines.first?["server"]?["Name"] == "there")
        #expect(lines.first?["base"]?["Name"] == "Account 00000" && lines.last?["server"] == .null)
        let (_, table) = try await Msync.run(["conflicts", "--store", path, "--format", "table", "--soup", "accounts"])
        #expect(table.contains("CHANGED_ON_BOTH_SIDES") && table.contains("Name=\"here\"") && table.contains("Name=\"there\""), "\(table)")
        #expect(table.contains("(deleted)"))
        let (_, syncs) = try await Msync.run(["syncs", "--store", path, "--format", "json"])
        #expect(try InspectCommandTests.jsonLines(syncs).contains { $0["name"] == "up" && $0["conflicts"] == 2 }, "\(syncs)")
    }

    /// A LEAVE_IF_CHANGED conflict where each side changed other fields names the fields where
    /// the versions differ, the same in the record's `__last_error__` and in `msync conflicts`,
    /// and not the dates that change with every write.
    @Test func aLeaveIfChangedConflictNamesTheFieldsAtStake() async throws {
        let harness = try await CommandLineOrg()
        defer { Task { await harness.stop() } }
        let folder = try Msync.folder("msync-conflicts")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("store.sqlite").path
        let ids = try await harness.createAccounts(1)
        do {
            let store = try SmartStore(path: path)
            try store.registerSoup("accounts", indexSpecs: [IndexSpec("Id", .string), IndexSpec("__local__", .string)])
            let manager = try SyncManager(store: store, client: harness.client)
            _ = try await manager.syncDown(
                target: try SoqlSyncDownTarget(query: "SELECT Id, Name, Description, Industry, LastModifiedDate FROM Account"),
                soupName: "accounts")
            try await Task.sleep(for: .milliseconds(1050))
            let entry = try #require(try await store.lookupSoupEntryId(soup: "accounts", path: "Id", value: .string(ids[0])))
            try await store.updateLocally(["Name": "here"], entryId: entry, in: "accounts")
            try await harness.client.update("Account", id: ids[0], fields: ["Description": "there"])
            let up = try await manager.syncUp(
                options: SyncOptions(mergeMode: .leaveIfChanged, fieldlist: ["Id", "Name", "Description", "Industry", "LastModifiedDate"]),
                soupName: "accounts")
            #expect(up.conflictCount == 1)
            let record = try #require(try await store.retrieve([entry], from: "accounts").first)
            let lastError = try JSONValue(parsing: try #require(record["__last_error__"]?.stringValue))
            #expect(lastError.arrayValue?.first?["fields"] == ["Name", "Description"], "\(lastError)")
        }
        let (status, json) = try await Msync.run(["conflicts", "--store", path, "--format", "json"])
        #expect(status == 0, "\(json)")
        let conflict = try #require(try InspectCommandTests.jsonLines(json).first)
        #expect(conflict["kind"] == "CHANGED_ON_BOTH_SIDES" && conflict["fields"] == ["Name", "Description"], "\(json)")
    }
}
