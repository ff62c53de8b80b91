import FastJSON
import Foundation
import SalesforceREST
import TestSupport
import Testing

@testable import LocalForce
@testable import MobileSync
@testable import SmartStore

/// `msync sync` processes sharing one store file, against one LocalForce over HTTP: running
/// together, killed at random moments, opened while another runs.
@Suite(.serialized) struct MultiProcessSyncTests {
    /// A store file with a synced-down `accounts` soup, config files naming a sync down
    /// (`down`) and a LEAVE_IF_CHANGED collection sync up (`up`, `batch` records a request),
    /// and the arguments that run msync sync on them.
    struct World {
        let harness: CommandLineOrg
        let folder: URL
        let store: SmartStore
        var storePath: String { folder.appendingPathComponent("store.sqlite").path }

        init(accounts: Int, batch: Int = 200) async throws {
            harness = try await CommandLineOrg()
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("multi-process-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(
                #"""
                {"syncs":[
                  {"syncName":"down","syncType":"syncDown","soupName":"accounts","target":{"type":"soql","query":"SELECT Id, Name, LastModifiedDate FROM Account"},"options":{"mergeMode":"LEAVE_IF_CHANGED"}},
                  {"syncName":"up","syncType":"syncUp","soupName":"accounts","target":{"type":"collection","maxBatchSize":\#(batch)},"options":{"fieldlist":["Name"],"mergeMode":"LEAVE_IF_CHANGED"}}]}
                """#.utf8
            ).write(to: folder.appendingPathComponent("usersyncs.json"))
            store = try SmartStore(path: folder.appendingPathComponent("store.sqlite").path)
            try store.registerSoup(
                "accounts",
                indexSpecs: [IndexSpec("Id", .string), IndexSpec("Name", .string), IndexSpec("__local__", .string)])
            try await harness.createAccounts(accounts, prefix: "Server")
            let (status, output) = try await run(["down"])
            #expect(status == 0, "\(output)")
        }

        func arguments(_ names: [String]) -> [String] {
            [
                "sync", "--instance-url", harness.baseURL.absoluteString, "--token", CommandLineOrg.token, "--store", storePath,
                "--syncs", folder.appendingPathComponent("usersyncs.json").path, "--json",
            ] + names
        }

        func run(_ names: [String]) async throws -> (Int32, String) {
            try await ChildProcess.run(try Msync.binary(), arguments(names), timeout: .seconds(120))
        }

        /// Starts msync sync without waiting for it (its output discarded).
        func start(_ names: [String]) throws -> RunningChild {
            try RunningChild(try Msync.binary(), arguments(names))
        }

        /// Local edits: `creates` new records, renames of `edits` clean ones, deletes of `deletes`
        /// clean ones (fewer when fewer are clean); returns how many were deleted.
        @discardableResult
        func edit(round: Int, creates: Int, edits: Int, deletes: Int) async throws -> Int {
            for index in 0..<creates {
                try await store.createLocally(["Name": .string("Local \(round)-\(index)")], objectType: "Account", in: "accounts")
            }
            let clean = try await store.query(
                .smart(
                    "select {accounts:_soupEntryId} from {accounts} where {accounts:__local__} = 0 order by {accounts:_soupEntryId}",
                    pageSize: edits + deletes))
            let ids = clean.compactMap { $0.arrayValue?.first?.int64Value }
            for (offset, entryId) in ids.enumerated() {
                if offset < edits {
                    _ = try await store.updateLocally(["Name": .string("Edited \(round)-\(offset)")], entryId: entryId, in: "accounts")
                } else {
                    _ = try await store.deleteLocally(entryId: entryId, in: "accounts")
                }
            }
            return max(0, ids.count - edits)
        }

        /// The store equals the org: every record once on each side, same names, nothing dirty,
        /// no sync left RUNNING or WAITING.
        func expectStoreEqualsOrg(_ label: String) async throws {
            var server: [String: String] = [:]
            for record in try await harness.client.allRecords("SELECT Id, Name FROM Account") {
                if let id = record["Id"]?.stringValue { server[id] = record["Name"]?.stringValue }
            }
            let names = server.values.sorted()
            let repeated = Dictionary(grouping: names, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
            #expect(repeated.isEmpty, "\(label): duplicates on the org: \(repeated)")
            let entries = try await store.query(.all(soup: "accounts", orderPath: "Id", pageSize: 100_000))
            var local: [String: String] = [:]
            for entry in entries { if let id = entry["Id"]?.stringValue { local[id] = entry["Name"]?.stringValue } }
            #expect(local.count == entries.count, "\(label): entries without an id or sharing one")
            #expect(local == server, "\(label): \(Set(local.keys).symmetricDifference(server.keys).count) ids differ")
            let dirty = try await store.dirtyEntryIds(soup: "accounts")
            #expect(dirty.isEmpty, "\(label): \(dirty.count) left dirty")
            let states = try SyncManager.syncStates(in: store)
            #expect(states.allSatisfy { $0.status != .running && $0.status != .waiting }, "\(label): \(states.map(\.status))")
        }

        func stop() async {
            await harness.stop()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// Three msync sync processes on one store with 300 pending creates and 300 edits: each
    /// record exists once on the org, nothing is left dirty, no state RUNNING.
    @Test func threeProcessesSyncingOneStore() async throws {
        let world = try await World(accounts: 400)
        try await world.edit(round: 0, creates: 300, edits: 300, deletes: 0)
        let results = try await withThrowingTaskGroup(of: (Int32, String).self) { group in
            for _ in 0..<3 { group.addTask { try await world.run(["up", "down"]) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for (status, output) in results { #expect(status == 0, "\(output)") }
        #expect(try await world.harness.client.query("SELECT COUNT() FROM Account").totalSize == 700)
        try await world.expectStoreEqualsOrg("three processes")
        await world.stop()
    }

    /// msync sync of creates, updates and deletes killed (SIGKILL) at random moments, 20
    /// times, with more local edits between kills; then a clean run: the store equals the org,
    /// nothing is dirty, nothing is duplicated.
    @Test func killedAtRandomMomentsThenRerun() async throws {
        let world = try await World(accounts: 300, batch: 20)
        await world.harness.localForce.faults.configure(rate: 0, latency: .milliseconds(40))
        var generator = SystemRandomNumberGenerator()
        var kills: [Int] = []
        var deleted = 0
        for round in 1...20 {
            deleted += try await world.edit(round: round, creates: 30, edits: 20, deletes: 5)
            let process = try world.start(["up"])
            let moment = Int.random(in: 20...500, using: &generator)
            try await Task.sleep(for: .milliseconds(moment))
            if process.isRunning {
                killNow(process.processIdentifier)
                kills.append(moment)
            }
            await process.exited()
        }
        #expect(kills.count >= 15, "only \(kills.count) runs were still going when killed: \(kills)")
        await world.harness.localForce.faults.configure(rate: 0, latency: .zero)
        let (status, output) = try await world.run(["up", "down"])
        #expect(status == 0, "\(output)")
        try await world.expectStoreEqualsOrg("after \(kills.count) kills")
        let count = try await world.harness.client.query("SELECT COUNT() FROM Account").totalSize
        #expect(count == 300 + 20 * 30 - deleted, "\(count) records, \(deleted) deleted")
        await world.stop()
    }

    /// While msync sync runs, another process opening the store leaves its sync RUNNING; a
    /// killed msync's RUNNING sync is STOPPED by the next opener, and resumes.
    @Test func runningStatesOfLiveAndKilledProcesses() async throws {
        let world = try await World(accounts: 10)
        try await world.edit(round: 0, creates: 200, edits: 0, deletes: 0)
        await world.harness.localForce.faults.configure(rate: 0, latency: .milliseconds(400))
        for kill in [false, true] {
            let process = try world.start(["up"])
            for _ in 0..<500 where try SyncManager.syncStates(in: world.store).first(where: { $0.name == "up" })?.status != .running {
                try await Task.sleep(for: .milliseconds(20))
            }
            if kill {
                killNow(process.processIdentifier)
                await process.exited()
                // The killed process's request in flight still commits on the server after its
                // latency (as a real org finishes a request whose client went away). A create
                // that commits only after the next sync up resent it is the default path's
                // documented limit (MobileSync's Guarantees article, "Limits"); this test is about
                // the states, so it lets the server finish first.
                try await Task.sleep(for: .seconds(1))
            }
            let client = world.harness.client
            let manager = try SyncManager(store: world.store, client: client, otherProcesses: .fail)
            let state = try await manager.syncStatus(named: "up")
            #expect(state?.status == (kill ? .stopped : .running), "killed: \(kill)")
            if !kill {
                await process.exited()
                #expect(process.terminationStatus == 0)
                try await world.edit(round: 1, creates: 200, edits: 0, deletes: 0)
            }
        }
        await world.harness.localForce.faults.configure(rate: 0, latency: .zero)
        // The kill may come after the batch's creates were stamped and before their request
        // left: nothing of it lands, and by default the next sync up holds those creates back for
        // `--lost-create-wait` (ten minutes). The server has finished what it received (above),
        // so this run sends them again at once.
        let (status, output) = try await world.run(["--lost-create-wait", "0", "up", "down"])
        #expect(status == 0, "\(output)")
        try await world.expectStoreEqualsOrg("after a kill")
        await world.stop()
    }
}
