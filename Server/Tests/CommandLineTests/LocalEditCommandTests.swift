import FastJSON
import Foundation
import MobileSync
import SalesforceREST
import SmartStore
import TestSupport
import Testing

/// `msync put`, `edit` and `delete` through the binary: records changed as an app changes them,
/// then `msync sync` sends them to LocalForce and the org ends equal to the store.
@Suite struct LocalEditCommandTests {
    @Test func editsFromTheCommandLineSyncUp() async throws {
        let harness = try await CommandLineOrg()
        defer { Task { await harness.stop() } }
        let ids = try await harness.createAccounts(5)
        let (folder, storeConfig, syncs) = try SyncCommandTests.configFolder("msync-edits")
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(
            #"{"soups":[{"soupName":"accounts","indexes":[{"path":"Id","type":"string"},{"path":"Name","type":"string"}]}]}"#.utf8
        ).write(to: storeConfig)
        try Data(
            #"""
            {"syncs":[{"syncName":"down","syncType":"syncDown","soupName":"accounts","target":{"type":"soql","query":"SELECT Id, Name, Industry, NumberOfEmployees FROM Account"},"options":{"mergeMode":"OVERWRITE"}},
                      {"syncName":"up","syncType":"syncUp","soupName":"accounts","target":{},"options":{"fieldlist":["Name","Industry","NumberOfEmployees"],"mergeMode":"OVERWRITE"}}]}
            """#.utf8
        ).write(to: syncs)
        let store = folder.appendingPathComponent("store.sqlite").path
        let sync = [
            "sync", "--instance-url", harness.baseURL.absoluteString, "--token", CommandLineOrg.token, "--store", store,
            "--store-config", storeConfig.path, "--syncs", syncs.path,
        ]
        let down = try await Msync.run(sync + ["down"])
        #expect(down.0 == 0, "\(down.1)")
        let soup = ["--store", store, "--soup", "accounts"]

        // put: two creates (the type from attributes or --object-type) and an update by Id, from a file.
        let lines = folder.appendingPathComponent("changes.jsonl")
        try Data(
            """
            {"Name":"Made here","Industry":"Shipping","attributes":{"type":"Account"}}

            {"Name":"Also made here","NumberOfEmployees":7}
            {"Id":"\(ids[0])","Industry":"Energy"}
            """.utf8
        ).write(to: lines)
        let put = try await Msync.run(["put"] + soup + ["--object-type", "Account", "--format", "json", lines.path])
        #expect(put.0 == 0, "\(put.1)")
        let reported = try put.1.split(separator: "\n").map { try JSONValue(parsing: String($0)) }
        #expect(reported.map { $0["action"] } == ["created", "created", "updated"])
        #expect(reported.map { $0[LocalFields.locallyCreated] } == [true, true, false])
        #expect(reported[2]["Id"]?.stringValue == ids[0] && reported[2][LocalFields.locallyUpdated] == true)
        #expect(reported[0]["Id"]?.stringValue?.hasPrefix("local_") == true)
        // Closed on exit: the store's file alone, without its write-ahead log, holds the records.
        #expect(try await Self.entriesOfTheFileAlone(store, in: folder).contains { $0["Name"] == "Also made here" })
        // From standard input, by external id: the second line updates what the first creates.
        let piped = try await ChildProcess.run(
            URL(fileURLWithPath: "/bin/sh"),
            [
                "-c",
                #"printf '%s\n%s\n' "$1" "$2" | "$0" put --store "$3" --soup accounts --external-id-field Name --object-type Account"#,
                try Msync.binary().path, #"{"Name":"Piped","Industry":"Retail"}"#, #"{"Name":"Piped","NumberOfEmployees":3}"#,
                store,
            ])
        let pipedRows = try piped.output.split(separator: "\n").map { try JSONValue(parsing: String($0)) }
        #expect(piped.status == 0 && pipedRows.map { $0["action"] } == ["created", "updated"], "\(piped.output)")
        #expect(pipedRows.count == 2 && pipedRows[0]["_soupEntryId"] == pipedRows[1]["_soupEntryId"])

        // edit: typed fields on one entry; delete: by id and by a condition.
        let entry = try #require(reported[1]["_soupEntryId"]?.int64Value)
        let edit = try await Msync.run(["edit"] + soup + [String(entry), "Name=Edited here", "NumberOfEmployees:=40"])
        #expect(edit.0 == 0 && edit.1.contains(#""action":"updated""#), "\(edit.1)")
        let byId = try await Msync.run(["delete"] + soup + [ids[1]])
        #expect(byId.0 == 0 && byId.1.contains(#""__locally_deleted__":true"#), "\(byId.1)")
        let byWhere = try await Msync.run(["delete"] + soup + ["--where", "{accounts:Id} = '\(ids[2])'"])
        #expect(byWhere.0 == 0 && byWhere.1.contains(ids[2]), "\(byWhere.1)")

        // The sync up sends all of it; the org now holds what the store holds.
        let up = try await Msync.run(sync + ["up"])
        #expect(up.0 == 0, "\(up.1)")
        let org = try await harness.client.query("SELECT Id, Name, Industry, NumberOfEmployees FROM Account").records()
        let entries = try await Self.entriesOfTheFileAlone(store, in: folder)
        #expect(entries.allSatisfy { !LocalFields.isDirty($0) && $0["Id"]?.stringValue?.hasPrefix("local_") == false })
        func shape(_ record: JSONValue) -> String {
            ["Id", "Name", "Industry", "NumberOfEmployees"].map { (record[$0] ?? .null).jsonString }.joined(separator: "|")
        }
        #expect(Set(org.map(shape)) == Set(entries.map(shape)))
        #expect(org.count == 5 - 2 + 3)
        let names = Set(org.compactMap { $0["Name"]?.stringValue })
        #expect(names.isSuperset(of: ["Made here", "Edited here", "Piped"]))
        #expect(!org.contains { [ids[1], ids[2]].contains($0["Id"]?.stringValue ?? "") })
        #expect(org.first { $0["Id"]?.stringValue == ids[0] }?["Industry"] == "Energy")
        #expect(org.first { $0["Name"] == "Piped" }.map { [$0["Industry"], $0["NumberOfEmployees"]] } == ["Retail", 3])
    }

    @Test func refusalsLeaveTheStoreAsItWas() async throws {
        let folder = try Msync.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("store.sqlite").path
        do {
            let store = try SmartStore(path: path)
            try store.registerSoup("accounts", indexSpecs: [IndexSpec(path: "Id", type: .string)])
            try await store.create(["Id": "001000000000001AAA", "Name": "Kept"], in: "accounts")
            try store.close()
        }
        func entries() async throws -> [JSONValue] {
            let store = try SmartStore(readOnlyAt: path)
            defer { try? store.close() }
            return try await store.query(.all(soup: "accounts", orderPath: "_soupEntryId", pageSize: 100))
        }
        let before = try await entries()
        let lines = folder.appendingPathComponent("lines.jsonl")
        let soup = ["--store", path, "--soup", "accounts"]
        let cases: [(arguments: [String], input: String, message: String)] = [
            (["put", "--store", path, "--soup", "contacts"], "{}", "the store has no soup named contacts (soups: accounts)"),
            (
                ["put", "--store", path, "--soup", "acounts"], "{}",
                "the store has no soup named acounts; did you mean accounts? (soups: accounts)"
            ),
            (["put", "--store", path + ".missing", "--soup", "accounts"], "{}", "no store at \(path).missing"),
            (["put"] + soup + ["--object-type", "Account"], "{\"Name\":\"A\"}\n{oops\n", "line 2: malformed JSON"),
            (["put"] + soup + ["--object-type", "Account"], "[1]", "line 1: not a JSON object; nothing was saved"),
            (["put"] + soup, "{\"Name\":\"A\"}", "line 1: a new record needs its type"),
            (
                ["put"] + soup, "{\"Id\":\"001000000000009AAA\"}",
                "line 1: no entry of accounts has Id 001000000000009AAA; nothing was saved"
            ),
            (["put"] + soup + ["--object-type", "Account"], "{\"Name\":\"A\",\"__local__\":false}", "__local__ is kept by the store"),
            (
                ["put"] + soup + ["--external-id-field", "Name", "--object-type", "Account"], "{\"Name\":\"A\"}",
                "does not have an index on Name"
            ),
            (["edit"] + soup + ["99", "Name=X"], "", "no entry of accounts has _soupEntryId 99"),
            (["edit"] + soup + ["1", "Id=001000000000002AAA"], "", "Id of entry 1 is \"001000000000001AAA\": an edit does not change it"),
            (["put"] + soup, "{\"_soupEntryId\":1,\"attributes\":{\"type\":\"Contact\"}}", "line 1: attributes of entry 1 is null"),
            (["put"] + soup, "{\"_soupEntryId\":1.5,\"Name\":\"A\"}", "line 1: _soupEntryId must be a whole number, not 1.5"),
            (["edit"] + soup + ["1", "Name:={"], "", "is not JSON"),
            (["edit"] + soup + ["1", "__locally_deleted__:=true"], "", "is kept by the store"),
            (["delete"] + soup + ["001000000000001AAA", "--entry-id", "99"], "", "no entry of accounts has _soupEntryId 99"),
            (["delete"] + soup, "", "give record ids, --entry-id or --where"),
        ]
        for (arguments, input, message) in cases {
            try Data(input.utf8).write(to: lines)
            let needsInput = arguments.first == "put"
            let (status, output) = try await Msync.run(arguments + (needsInput ? [lines.path] : []))
            #expect(status != 0 && output.contains(message), "\(arguments): \(output)")
        }
        #expect(try await entries() == before, "a refused edit changed the store")
        // By record id and by entry id, the same entry: updated, then marked deleted.
        let byId = try await Msync.run(
            ["edit"] + soup + ["--id", "001000000000001AAA", "Name=Changed", "--format", "csv"])
        #expect(byId.0 == 0 && byId.1.contains("updated,1,001000000000001AAA,,true,"), "\(byId.1)")
        let byEntry = try await Msync.run(["delete"] + soup + ["--entry-id", "1", "--format", "csv"])
        #expect(byEntry.0 == 0 && byEntry.1.contains("deleted,1,001000000000001AAA,,true,true"), "\(byEntry.1)")

        // An encrypted store: refused without its key, changed with it.
        let encrypted = folder.appendingPathComponent("encrypted.sqlite").path
        let key = StoreKey(sqlcipherKey: "edit key", kdfIterations: 4000)
        do {
            let store = try SmartStore(path: encrypted, key: key)
            try store.registerSoup("accounts", indexSpecs: [IndexSpec(path: "Id", type: .string)])
            try await store.create(["Id": "001000000000001AAA", "Name": "Kept"], in: "accounts")
            try store.close()
        }
        let edit = ["edit", "--store", encrypted, "--soup", "accounts", "--kdf-iterations", "4000", "1", "Name=Changed"]
        let refused = try await EncryptedCommandTests.run(edit)
        #expect(refused.status != 0 && refused.output.contains("is encrypted: set MSYNC_STORE_KEY to its key"), "\(refused.output)")
        let done = try await EncryptedCommandTests.run(edit + ["--format", "csv"], environment: ["MSYNC_STORE_KEY": "edit key"])
        #expect(done.status == 0 && done.output.hasPrefix("action,_soupEntryId,Id,"), "\(done.output)")
        // Created by the app without flags: an update sets __locally_updated__ (and __local__) only.
        #expect(done.output.contains("updated,1,001000000000001AAA,,true,\r\n"), "\(done.output)")

        // Another program's SQLite database is refused before anything is written into it.
        let other = folder.appendingPathComponent("other.sqlite").path
        let python = URL(fileURLWithPath: "/usr/bin/env")
        let tables =
            "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('create table if not exists t(x)'); print(c.execute('select count(*) from sqlite_master').fetchone()[0])"
        _ = try await ChildProcess.run(python, ["python3", "-c", tables, other])
        let foreign = try await Msync.run(["edit", "--store", other, "--soup", "accounts", "1", "Name=X"])
        #expect(foreign.0 != 0, "\(foreign.1)")
        let after = try await ChildProcess.run(python, ["python3", "-c", tables, other])
        #expect(after.output == "1\n", "tables were added to another program's database: \(after.output)")

        // A condition that escapes its parentheses cannot page for ever: refused, nothing marked.
        let many = folder.appendingPathComponent("many.sqlite").path
        do {
            let store = try SmartStore(path: many)
            try store.registerSoup("accounts", indexSpecs: [IndexSpec(path: "Id", type: .string)])
            try await store.create((0..<1001).map { ["Id": .string("001\($0)"), "Name": "N"] }, in: "accounts")
            try store.close()
        }
        let escaped = try await Msync.run(["delete", "--store", many, "--soup", "accounts", "--where", "1=1) or (1=1"])
        #expect(escaped.0 != 0 && escaped.1.contains("--where must be one condition"), "\(escaped.1)")
        let marked = try await Msync.run([
            "query", "--store", many, "select count(*) as n from {accounts} where {accounts:__locally_deleted__} = 1",
        ])
        #expect(marked.1.hasPrefix(#"{"n":0}"#), "\(marked.1)")
    }

    /// The entries of `accounts` in a copy of the store's file made without its `-wal` and
    /// `-shm`: what a user who copies the one file gets.
    static func entriesOfTheFileAlone(_ store: String, in folder: URL) async throws -> [JSONValue] {
        let copy = folder.appendingPathComponent("copy-\(UUID().uuidString).sqlite")
        try FileManager.default.copyItem(at: URL(fileURLWithPath: store), to: copy)
        let alone = try SmartStore(readOnlyAt: copy.path)
        defer { try? alone.close() }
        return try await alone.query(.all(soup: "accounts", orderPath: "_soupEntryId", pageSize: 100))
    }
}
