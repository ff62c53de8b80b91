import Foundation
import SmartStore
import TestSupport
import Testing

/// `msync sync` checks its inputs before it creates or changes a store: a file that is not a
/// store is refused (never given a store's tables), and for a new store a missing folder, a bad
/// entry of `--syncs`, an unknown sync name or a soup no `--store-config` registers leave no
/// file behind. A name typed wrong gets the closest one.
@Suite struct SyncInputsTests {
    static let syncsFile = #"""
        {"syncs":[{"syncName":"accounts","syncType":"syncDown","soupName":"accounts","target":{"type":"soql","query":"SELECT Id, Name FROM Account"},"options":{"mergeMode":"OVERWRITE"}}]}
        """#

    /// The arguments of an `msync sync` into `store` with the folder's configs.
    static func arguments(_ harness: CommandLineOrg, folder: URL, store: String, storeConfig: Bool = true) -> [String] {
        ["sync", "--instance-url", harness.baseURL.absoluteString, "--token", CommandLineOrg.token, "--store", store]
            + (storeConfig ? ["--store-config", folder.appendingPathComponent("userstore.json").path] : [])
            + ["--syncs", folder.appendingPathComponent("usersyncs.json").path]
    }

    /// An org, and a config folder whose usersyncs.json holds ``syncsFile``.
    static func world() async throws -> (CommandLineOrg, URL, URL) {
        let harness = try await CommandLineOrg()
        let (folder, _, syncs) = try SyncCommandTests.configFolder("msync-inputs")
        try Data(syncsFile.utf8).write(to: syncs)
        return (harness, folder, syncs)
    }

    @Test func aFileThatIsNotAStoreIsNeverWritten() async throws {
        let (harness, folder, _) = try await Self.world()
        defer { Task { await harness.stop() } }
        defer { try? FileManager.default.removeItem(at: folder) }
        let other = folder.appendingPathComponent("other.db").path
        let (made, _) = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["sqlite3", other, "CREATE TABLE notes (text TEXT);"])
        try #require(made == 0)
        let (status, text) = try await Msync.run(Self.arguments(harness, folder: folder, store: other))
        #expect(status == 1, "\(text)")
        #expect(text.contains("is not a SmartStore store") && text.contains("writes into a SmartStore store or a new file only"), "\(text)")
        let (_, tables) = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["sqlite3", other, ".tables"])
        #expect(tables.trimmingCharacters(in: .whitespacesAndNewlines) == "notes", "\(tables)")
    }

    @Test func mistakesLeaveNoNewStore() async throws {
        let (harness, folder, syncs) = try await Self.world()
        defer { Task { await harness.stop() } }
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appendingPathComponent("store.sqlite").path
        let cases: [(arguments: [String], message: String)] = [
            (
                Self.arguments(harness, folder: folder, store: store) + ["acounts"],
                "no sync named acounts; did you mean accounts? (syncs: accounts)"
            ),
            (
                Self.arguments(harness, folder: folder, store: store, storeConfig: false),
                "sync accounts needs soup accounts, and a new store has none"
            ),
            (
                Self.arguments(harness, folder: folder, store: folder.appendingPathComponent("missing/store.sqlite").path),
                "no folder \(folder.appendingPathComponent("missing").path) for the store"
            ),
        ]
        for (arguments, message) in cases {
            let (status, text) = try await Msync.run(arguments)
            #expect(status == 1 && text.contains(message), "\(text)")
            #expect(!FileManager.default.fileExists(atPath: store), "\(message): a store was left")
        }
        try Data(Self.syncsFile.replacingOccurrences(of: "syncDown", with: "syncSideways").utf8).write(to: syncs)
        let (status, text) = try await Msync.run(Self.arguments(harness, folder: folder, store: store))
        #expect(status == 1 && text.contains("--syncs: sync accounts:") && text.contains("no store was created"), "\(text)")
        #expect(!FileManager.default.fileExists(atPath: store))
    }

    /// On an existing store, a name typed wrong is refused with the store's sync names.
    @Test func aTypoOnAnExistingStoreGetsTheClosestName() async throws {
        let (harness, folder, _) = try await Self.world()
        defer { Task { await harness.stop() } }
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appendingPathComponent("store.sqlite").path
        #expect(try await Msync.run(Self.arguments(harness, folder: folder, store: store)).status == 0)
        let (status, text) = try await Msync.run([
            "sync", "--instance-url", harness.baseURL.absoluteString, "--token", CommandLineOrg.token, "--store", store, "acount",
        ])
        #expect(status == 1 && text.contains("no sync named acount; did you mean accounts? (syncs: accounts)"), "\(text)")
    }

    /// A sync that waits for another process says so and for how long, not the previous run's
    /// progress; at the end of --wait it fails with what held it. With --wait 0 it fails before
    /// any request: here the org would refuse the token, and that is not what msync says.
    @Test func aBusySoupIsWaitedForOrRefusedAtOnce() async throws {
        let (harness, folder, _) = try await Self.world()
        defer { Task { await harness.stop() } }
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appendingPathComponent("store.sqlite").path
        let arguments = Self.arguments(harness, folder: folder, store: store)
        #expect(try await Msync.run(arguments).status == 0)
        let refused = arguments.map { $0 == CommandLineOrg.token ? "refused" : $0 }
        let holder = try SmartStore(path: store)
        let lock = try #require(holder.tryLock(["soup:accounts"]))
        let (status, text) = try await Msync.run(arguments + ["--wait", "1"])
        let (atOnce, atOnceText) = try await Msync.run(refused + ["--wait", "0"])
        lock.release()
        try holder.close()
        #expect(status == 1, "\(text)")
        #expect(text.contains("accounts: WAITING: another process is syncing its soup; waiting up to 1 s (--wait)"), "\(text)")
        #expect(!text.contains("WAITING 100%"), "\(text)")
        #expect(atOnce == 1, "\(atOnceText)")
        #expect(
            atOnceText.contains("sync accounts: another process is syncing it or its soups (soup:accounts); --wait 0 does not wait"),
            "\(atOnceText)")
        #expect(!atOnceText.contains("refused the token"), "\(atOnceText)")
        // Free again: the refused token is what stops it now.
        let (freeStatus, free) = try await Msync.run(refused + ["--wait", "0"])
        #expect(freeStatus == 1 && free.contains("refused the token"), "\(free)")
    }

    /// --live follows SOQL sync downs: asked of a sync up only, it says so before the sync up
    /// runs, rather than running it and then exiting 1.
    @Test func liveOfASyncUpIsRefusedBeforeItRuns() async throws {
        let (harness, folder, syncs) = try await Self.world()
        defer { Task { await harness.stop() } }
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(
            #"{"syncs":[{"syncName":"accountsUp","syncType":"syncUp","soupName":"accounts","target":{},"options":{"fieldlist":["Name"],"mergeMode":"OVERWRITE"}}]}"#
                .utf8
        ).write(to: syncs)
        let store = folder.appendingPathComponent("store.sqlite").path
        let (status, text) = try await Msync.run(Self.arguments(harness, folder: folder, store: store) + ["--live"])
        #expect(status == 1, "\(text)")
        #expect(
            text.contains(
                "--live follows SOQL sync downs, and none is asked for (accountsUp is a sync up): run these syncs without --live"),
            "\(text)")
        #expect(!text.contains("DONE"), "\(text)")
        let (_, states) = try await Msync.run(["syncs", "--store", store, "--format", "json"])
        #expect(states.contains("\"status\":\"NEW\""), "\(states)")
    }
}
