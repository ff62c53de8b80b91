import FastJSON
import Foundation
import MobileSync
import SmartStore
import TestSupport
import Testing

/// `msync sync` says what a sync left unsent (a summary line and the first records with their
/// reasons, exit code 3, every record in `--json`); `msync resolve` settles a conflict; `msync
/// sync --replace-definitions` gives a stored sync the file's definition.
@Suite struct SyncLeftoversTests {
    /// An org of three accounts synced down into a store, then edited there: entry 0 with a
    /// name the server refuses (over 255 characters), entry 1 changed on the server too (a
    /// conflict under LEAVE_IF_CHANGED), entry 2 an edit that goes through.
    struct World {
        let harness: CommandLineOrg
        let folder: URL
        let syncs: URL
        let store: String
        let arguments: [String]
        let ids: [String]
        let entryIds: [Int64]

        static let definitions = #"""
            {"syncs":[{"syncName":"down","syncType":"syncDown","soupName":"accounts","target":{"type":"soql","query":"SELECT Id, Name, Industry, LastModifiedDate FROM Account"},"options":{"mergeMode":"OVERWRITE"}},
                      {"syncName":"up","syncType":"syncUp","soupName":"accounts","target":{},"options":{"fieldlist":["Name","Industry"],"mergeMode":"MODE"}}]}
            """#

        static func make() async throws -> World {
            let harness = try await CommandLineOrg()
            let ids = try await harness.createAccounts(3)
            let (folder, storeConfig, syncs) = try SyncCommandTests.configFolder("msync-left")
            try Data(definitions.replacingOccurrences(of: "MODE", with: "LEAVE_IF_CHANGED").utf8).write(to: syncs)
            let store = folder.appendingPathComponent("store.sqlite").path
            let arguments = [
                "sync", "--instance-url", harness.baseURL.absoluteString, "--token", CommandLineOrg.token, "--store", store,
                "--store-config", storeConfig.path, "--syncs", syncs.path,
            ]
            let (status, down) = try await Msync.run(arguments + ["down"])
            #expect(status == 0, "\(down)")
            let smartStore = try SmartStore(path: store)
            let entries = try await smartStore.query(.all(soup: "accounts", orderPath: "Name", pageSize: 10))
            let entryIds = entries.compactMap { $0["_soupEntryId"]?.int64Value }
            try #require(entryIds.count == 3)
            _ = try await smartStore.updateLocally(
                ["Name": .string(String(repeating: "n", count: 300))], entryId: entryIds[0], in: "accounts")
            _ = try await smartStore.updateLocally(["Industry": "Mine"], entryId: entryIds[1], in: "accounts")
            _ = try await smartStore.updateLocally(["Industry": "Fine"], entryId: entryIds[2], in: "accounts")
            try smartStore.close()
            try await Task.sleep(for: .milliseconds(20)) // the server's change is later than the copy
            try await harness.client.update("Account", id: ids[1], fields: ["Industry": "Theirs"])
            return World(harness: harness, folder: folder, syncs: syncs, store: store, arguments: arguments, ids: ids, entryIds: entryIds)
        }

        func stop() async {
            await harness.stop()
            try? FileManager.default.removeItem(at: folder)
        }

        /// The server's value of `field` on record `index`.
        func server(_ index: Int, _ field: String) async throws -> JSONValue? {
            try await harness.client.retrieve("Account", id: ids[index], fields: [field])[field]
        }
    }

    @Test func recordsLeftUnsentAreReportedAndExitThree() async throws {
        let world = try await World.make()
        defer { Task { await world.stop() } }
        let (status, text) = try await Msync.run(world.arguments + ["up"])
        #expect(status == 3, "\(text)")
        #expect(text.contains("up: left 2 records unsent: 1 failed, 1 in conflict"), "\(text)")
        #expect(text.contains("  entry \(world.entryIds[0]) (\(world.ids[0])): failed: STRING_TOO_LONG"), "\(text)")
        #expect(text.contains("  entry \(world.entryIds[1]) (\(world.ids[1])): conflict: SYNC_CONFLICT"), "\(text)")
        #expect(text.contains("see them with: msync conflicts --store \(world.store)"), "\(text)")

        let (again, json) = try await Msync.run(world.arguments + ["up", "--json"])
        #expect(again == 3, "\(json)")
        let state = try #require(try JSONValue(parsing: String(json.split(separator: "\n").last ?? "")).arrayValue?.first)
        #expect(state["failed"] == 1 && state["conflicts"] == 1 && state["status"] == "DONE", "\(state)")
        let left = state["left"]?.arrayValue ?? []
        #expect(left.map { $0["reason"] } == ["failed", "conflict"], "\(left)")
        #expect(left.map { $0["id"]?.stringValue } == [world.ids[0], world.ids[1]])
        #expect(left.map { $0["entryId"]?.int64Value } == [world.entryIds[0], world.entryIds[1]])
        // The same keys as msync syncs, with the same values.
        let (_, listed) = try await Msync.run(["syncs", "--store", world.store, "--format", "json"])
        let row = try #require(try listed.split(separator: "\n").map { try JSONValue(parsing: String($0)) }.first { $0["name"] == "up" })
        for (key, value) in row.objectValue ?? [:] { #expect(state[key] == value, "\(key)") }
        #expect(try await world.server(2, "Industry") == "Fine")
    }

    /// `msync resolve` settles a conflict (here with a merged record); `msync syncs` stops
    /// counting it at once; a record that is not in conflict is refused.
    @Test func resolveSettlesAConflictFromTheCommandLine() async throws {
        let world = try await World.make()
        defer { Task { await world.stop() } }
        #expect(try await Msync.run(world.arguments + ["up"]).status == 3)
        let merged = world.folder.appendingPathComponent("merged.json")
        try Data(#"{"Industry": "Both"}"#.utf8).write(to: merged)
        let resolve = ["resolve", "--store", world.store, "--soup", "accounts"]
        let (status, text) = try await Msync.run(
            resolve + ["\(world.entryIds[1])", "--keep", "merged", "--record", merged.path, "--format", "json"])
        #expect(status == 0, "\(text)")
        #expect(text.contains("resolved: kept merged"), "\(text)")
        let (_, listed) = try await Msync.run(["syncs", "--store", world.store, "--format", "json"])
        let row = try #require(try listed.split(separator: "\n").map { try JSONValue(parsing: String($0)) }.first { $0["name"] == "up" })
        #expect(row["conflicts"] == 0 && row["failed"] == 1, "\(row)")
        let (notOne, refusal) = try await Msync.run(resolve + ["\(world.entryIds[0])", "--keep", "local"])
        #expect(notOne == 1 && refusal.contains("is not in conflict"), "\(refusal)")
        let (usage, missing) = try await Msync.run(resolve + ["\(world.entryIds[0])", "--keep", "merged"])
        #expect(usage != 0 && missing.contains("--keep merged takes the merged fields in --record FILE"), "\(missing)")
        // The failed record fixed by hand: the next sync up sends both and leaves nothing.
        let (edited, editText) = try await Msync.run([
            "edit", "--store", world.store, "--soup", "accounts", "\(world.entryIds[0])", "Name=Fixed",
        ])
        #expect(edited == 0, "\(editText)")
        let (done, output) = try await Msync.run(world.arguments + ["up"])
        #expect(done == 0 && !output.contains("left"), "\(output)")
        #expect(try await world.server(1, "Industry") == "Both")
        #expect(try await world.server(0, "Name") == "Fixed")
    }

    /// A changed merge mode in usersyncs.json is said to be ignored, and taken with
    /// --replace-definitions: under OVERWRITE the conflicting edit goes through.
    @Test func replacedDefinitionsTakeTheFilesOptions() async throws {
        let world = try await World.make()
        defer { Task { await world.stop() } }
        try Data(World.definitions.replacingOccurrences(of: "MODE", with: "OVERWRITE").utf8).write(to: world.syncs)
        let (kept, keptText) = try await Msync.run(world.arguments + ["up"])
        #expect(kept == 3, "\(keptText)")
        #expect(keptText.contains("sync up: the store keeps its own definition, not --syncs' (give --replace-definitions"), "\(keptText)")
        let (replaced, text) = try await Msync.run(world.arguments + ["up", "--replace-definitions"])
        #expect(text.contains("sync up: definition replaced from --syncs"), "\(text)")
        #expect(text.contains("up: left 1 record unsent: 1 failed"), "\(text)")
        #expect(replaced == 3)
        #expect(try await world.server(1, "Industry") == "Mine")
    }
}
