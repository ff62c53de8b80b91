import ArgumentParser
import FastJSON
import Foundation
import LocalForce
import LocalForceHTTP
import MobileSync
import SalesforceREST
import SmartStore

/// `msync demo`: LocalForce in-process with a seeded org, a fresh store, and a full round trip.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run a full sync round trip against an embedded LocalForce with a seeded org.",
        discussion: """
            Starts LocalForce on 127.0.0.1 (in memory), seeds Accounts and Contacts, opens a fresh \
            store, then: sync down, local creates/updates/deletes, sync up, a change on the server, \
            resync, a delete on the server and ghost cleanup, and checks that store and org agree.

            With --keep DIR the org (DIR/org.sqlite) and the store (DIR/store.sqlite) are kept, and \
            the demo ends with the commands that explore them.
            """
    )

    @Option(help: "Accounts to seed (each gets one Contact).")
    var accounts = 3000

    @Option(help: "Store file to use (a temporary one, removed afterwards, when omitted).")
    var store: String?

    @Option(help: ArgumentHelp("Keep the org and the store in this directory (new or empty).", valueName: "dir"))
    var keep: String?

    @OptionGroup(title: "Encryption")
    var encryption: StoreKeyOptions

    func validate() throws {
        guard accounts >= 50 else { throw ValidationError("--accounts must be at least 50") }
        guard keep == nil || store == nil else { throw ValidationError("give --keep or --store, not both") }
        if let keep {
            let contents = (try? FileManager.default.contentsOfDirectory(atPath: keep)) ?? []
            guard contents.isEmpty else { throw ValidationError("--keep needs a new or empty directory; \(keep) has files") }
        }
    }

    /// Where the org and the store go: a kept directory's files, or memory and a temporary file.
    private var locations: (org: String, store: String?) {
        guard let keep else { return (":memory:", store) }
        let directory = URL(fileURLWithPath: keep)
        return (directory.appendingPathComponent("org.sqlite").path, directory.appendingPathComponent("store.sqlite").path)
    }

    func run() async throws {
        let out = ProgressPrinter()
        let started = Date()
        let token = ServeCommand.generateToken()
        if let keep { try FileManager.default.createDirectory(atPath: keep, withIntermediateDirectories: true) }
        let localForce = try await LocalForce(database: try SQLiteDatabase(path: locations.org), token: token)
        let server = try await LocalForceServer.start(localForce, host: "127.0.0.1", port: 0)
        out.line("LocalForce listening on \(server.baseURL.absoluteString)")
        do {
            try await roundTrip(server: server, token: token, out: out, started: started)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
        if keep != nil {
            // The kept org is one file: nothing left in its write-ahead log.
            try await (localForce.database as? SQLiteDatabase)?.checkpoint()
            printExploreCommands(token: token, out: out)
        }
    }

    /// What to run next on the kept org and store.
    private func printExploreCommands(token: String, out: ProgressPrinter) {
        let (org, store) = locations
        let storePath = store.map(Self.quoted) ?? ""
        let key = encryption.key() == nil ? "" : " (encrypted: give the same key, in \(encryption.variable))"
        out.line(
            """

            Kept the org in \(org) and the store in \(store ?? "")\(key). Explore them:
              msync soups --store \(storePath)
              msync syncs --store \(storePath)
              msync query --store \(storePath) "select {accounts:Name}, {accounts:Industry}, {accounts:__local__} from {accounts} order by {accounts:Name} limit 20"
              msync serve --database \(Self.quoted(org)) --port 8080 --token \(token)
              msync query --org --instance-url http://127.0.0.1:8080 --token \(token) "SELECT Id, Name, Industry FROM Account ORDER BY Name LIMIT 20"
              msync inspect --store \(storePath) --org --instance-url http://127.0.0.1:8080 --token \(token)
            """)
    }

    /// A path as a shell word: single-quoted when it holds anything but plain characters.
    static func quoted(_ path: String) -> String {
        let plain = path.allSatisfy { $0.isLetter || $0.isNumber || "/._-+:@".contains($0) }
        guard !plain else { return path }
        var quoted = String.UnicodeScalarView()
        quoted.append("'")
        for scalar in path.unicodeScalars {
            if scalar == "'" { quoted.append(contentsOf: "'\\''".unicodeScalars) } else { quoted.append(scalar) }
        }
        quoted.append("'")
        return String(quoted)
    }

    private func roundTrip(server: LocalForceServer, token: String, out: ProgressPrinter, started: Date) async throws {
        let client = RestClient(instanceURL: server.baseURL, tokenProvider: StaticAccessToken(token))
        try await seed(client, out: out)

        let kept = locations.store
        let path = kept ?? FileManager.default.temporaryDirectory.appendingPathComponent("msync-demo-\(UUID().uuidString).sqlite").path
        defer { if kept == nil { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } } }
        let smartStore = try openStore(path, out: out)
        // Closed before a temporary store is removed, and so that a kept one is one file.
        defer { try? smartStore.close() }
        let manager = try SyncManager(store: smartStore, client: client)
        try await syncDown(manager, store: smartStore, out: out)
        try await editOffline(smartStore, out: out)

        // 3. Sync up.
        let options = SyncOptions(mergeMode: .leaveIfChanged, fieldlist: ["Name", "Industry", "NumberOfEmployees", "Description"])
        let up = try await manager.syncUp(options: options, soupName: "accounts", name: "accounts-up") {
            out.update("sync up accounts", $0)
        }
        out.line("sync up: \(up.totalSize) records sent, \(up.failedRecordCount) failed")

        try await followServerChanges(manager, client: client, out: out)
        try await checkAgreement(client, store: smartStore, out: out, started: started)
    }

    /// The demo's store at `path`, with its two soups.
    private func openStore(_ path: String, out: ProgressPrinter) throws -> SmartStore {
        let smartStore = try encryption.open(path, readOnly: false)
        if smartStore.isEncrypted { out.line("store \(path), encrypted (SQLCipher 4 format)") }
        try smartStore.registerSoup(
            "accounts",
            indexSpecs: [
                IndexSpec("Id", .string), IndexSpec("Name", .fullText), IndexSpec("Industry", .string),
                IndexSpec("LastModifiedDate", .string), IndexSpec("__local__", .string),
                IndexSpec("__sync_id__", .integer),
            ])
        try smartStore.registerSoup(
            "contacts",
            indexSpecs: [
                IndexSpec("Id", .string), IndexSpec("AccountId", .string), IndexSpec("LastName", .string),
                IndexSpec("__local__", .string), IndexSpec("__sync_id__", .integer),
            ])
        out.line("store: \(path)")
        return smartStore
    }

    /// 1. Sync down accounts and contacts.
    private func syncDown(_ manager: SyncManager, store smartStore: SmartStore, out: ProgressPrinter) async throws {
        let accountsDown = try SoqlSyncDownTarget(query: "SELECT Id, Name, Industry, NumberOfEmployees, Description FROM Account")
        _ = try await manager.syncDown(target: accountsDown, soupName: "accounts", name: "accounts") {
            out.update("sync down accounts", $0)
        }
        let contactsDown = try SoqlSyncDownTarget(query: "SELECT Id, FirstName, LastName, Email, AccountId FROM Contact")
        _ = try await manager.syncDown(target: contactsDown, soupName: "contacts", name: "contacts") {
            out.update("sync down contacts", $0)
        }
        out.line(
            "stored \(try await smartStore.count(.all(soup: "accounts", pageSize: 1))) accounts and \(try await smartStore.count(.all(soup: "contacts", pageSize: 1))) contacts"
        )
    }

    /// 2. Offline edits: creates, updates and deletes, as an app makes them.
    private func editOffline(_ smartStore: SmartStore, out: ProgressPrinter) async throws {
        for index in 1...5 {
            try await smartStore.createLocally(
                ["Name": .string("Offline Startup \(index)"), "Industry": "Technology"], objectType: "Account", in: "accounts")
        }
        let page = try await smartStore.query(.all(soup: "accounts", orderPath: "Name", pageSize: 13))
        for entry in page.prefix(10) {
            try await smartStore.updateLocally(
                ["Description": "Edited offline"], entryId: entry["_soupEntryId"]?.int64Value ?? -1, in: "accounts")
        }
        for entry in page.suffix(3) {
            try await smartStore.deleteLocally(entryId: entry["_soupEntryId"]?.int64Value ?? -1, in: "accounts")
        }
        out.line("offline: 5 accounts created, 10 updated, 3 deleted")
    }

    /// 4. Someone changes and deletes records on the server: a resync and a ghost cleanup follow.
    private func followServerChanges(_ manager: SyncManager, client: RestClient, out: ProgressPrinter) async throws {
        let changed = try await client.query("SELECT Id FROM Account ORDER BY Name DESC LIMIT 20").records().compactMap {
            $0["Id"]?.stringValue
        }
        _ = try await client.updateRecords(changed.map { ["attributes": ["type": "Account"], "Id": .string($0), "Industry": "Media"] })
        out.line("server: 20 accounts changed by another user")
        let state = try await manager.reSync(named: "accounts") { out.update("resync accounts", $0) }
        out.line("resync: \(state.totalSize) changed records fetched")
        let deleted = try await client.query("SELECT Id FROM Account ORDER BY Name LIMIT 7 OFFSET 20").records().compactMap {
            $0["Id"]?.stringValue
        }
        _ = try await client.deleteRecords(deleted)
        out.line("server: 7 accounts deleted by another user")
        let ghosts = try await manager.cleanResyncGhosts(named: "accounts")
        out.line("ghost cleanup: \(ghosts) local records removed")
    }

    /// 5. Do store and org agree? Throws when they do not.
    private func checkAgreement(_ client: RestClient, store smartStore: SmartStore, out: ProgressPrinter, started: Date) async throws {
        let serverCount = try await client.query("SELECT COUNT() FROM Account").totalSize
        let localCount = try await smartStore.count(.all(soup: "accounts", pageSize: 1))
        let dirty = try await smartStore.count(
            .smart("select {accounts:_soupEntryId} from {accounts} where {accounts:__local__} = 1", pageSize: 1))
        let media = try await smartStore.count(.exact(soup: "accounts", path: "Industry", key: "Media", pageSize: 1))
        out.line(
            String(
                format:
                    "summary: %d accounts on the server, %d in the store, %d dirty, %d show the server-side change; %d requests in %.1f s",
                serverCount, localCount, dirty, media, client.requestCount, Date().timeIntervalSince(started)))
        guard serverCount == localCount, dirty == 0, media >= 20 else {
            throw DemoFailure(description: "store and server disagree")
        }
        out.line("round trip complete: store and org agree")
    }

    private func seed(_ client: RestClient, out: ProgressPrinter) async throws {
        let industries = ["Agriculture", "Banking", "Energy", "Retail", "Technology"]
        var ids: [String] = []
        for start in stride(from: 0, to: accounts, by: 200) {
            let records: [JSONValue] = (start..<min(accounts, start + 200)).map { index in
                [
                    "attributes": ["type": "Account"], "Name": .string(String(format: "Account %05d", index)),
                    "Industry": .string(industries[index % industries.count]), "NumberOfEmployees": .int(Int64(10 + index % 500)),
                ]
            }
            ids += try await client.createRecords(records).compactMap(\.id)
        }
        for start in stride(from: 0, to: ids.count, by: 200) {
            let records: [JSONValue] = ids[start..<min(ids.count, start + 200)].enumerated().map { offset, id in
                [
                    "attributes": ["type": "Contact"], "FirstName": "Pat", "LastName": .string("Contact \(start + offset)"),
                    "AccountId": .string(id),
                    "Email": .string("pat\(start + offset)@example.com"),
                ]
            }
            _ = try await client.createRecords(records)
        }
        out.line("seeded \(ids.count) accounts and \(ids.count) contacts")
    }
}

/// The demo's own check failed.
struct DemoFailure: Error, CustomStringConvertible {
    var description: String
}
