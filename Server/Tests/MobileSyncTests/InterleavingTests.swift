import FastJSON
import Foundation
import SalesforceREST
import SmartStore
import TestLocking
import Testing

@testable import LocalForce
@testable import MobileSync

/// Random interleavings of everything that writes one soup and its org at once: app edits
/// (updateLocally, fresh and stale whole-entry upserts, creates, deletes), sync ups in both SDK
/// merge modes through three targets, LEAVE_IF_CHANGED sync downs and resyncs, ghost
/// cleanups, a live sync, other users writing the org, and injected faults (errors, dropped
/// answers, gateways' 504s before and after the work). Then everything is settled and the
/// invariants checked: each server record held once, every edit the app made either on the
/// server or still dirty with its reason, clean entries equal to the server, no record created
/// twice for one local create, nothing RUNNING.
///
/// Seeded: the steps each round takes come from `MSYNC_CHAOS_SEED` (else a random seed, which
/// a failure prints with the steps); their timing is the machine's. It runs for
/// `MSYNC_CHAOS_SECONDS` (60 by default, as in the test command; longer on demand).
@Suite struct InterleavingTests {
    @Test func randomInterleavingsLoseAndDuplicateNothing() async throws {
        let environment = ProcessInfo.processInfo.environment
        let seconds = environment["MSYNC_CHAOS_SECONDS"].flatMap(Double.init).map { max(1, min($0, 86_400)) } ?? 60
        let seed = environment["MSYNC_CHAOS_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
        try await withHarness { harness in
            let world = try await ChaosWorld(harness: harness, seed: seed)
            let end = ContinuousClock.now + .seconds(seconds)
            var round = 0
            while ContinuousClock.now < end {
                round += 1
                try await world.round(round)
            }
            let problems = try await world.settleAndCheck()
            let steps = world.ledger.steps.current
            #expect(
                problems.isEmpty,
                "seed \(seed), \(round) rounds:\n\(problems.joined(separator: "\n"))\nsteps:\n\(steps.suffix(400).joined(separator: "\n"))")
            let kinds = Dictionary(steps.map { (String($0.split(separator: " ").first ?? ""), 1) }, uniquingKeysWith: +)
            print(
                "interleavings: seed \(seed), \(round) rounds, \(steps.count) steps in \(Int(seconds)) s: \(kinds.sorted { $0.key < $1.key })"
            )
        }
    }
}

/// What the app did that must survive: the last token it wrote to each entry's Industry, the
/// creates it made (by their unique Name), the entries it deleted; and every step taken.
final class ChaosLedger: Sendable {
    let steps = Locked<[String]>([])
    let lastEdit = Locked<[Int64: String]>([:])
    let created = Locked<Set<String>>([])
    let deleted = Locked<Set<Int64>>([])

    func note(_ step: String) { steps.withLock { $0.append(step) } }
}

/// A harness's store, manager and org, with the random actors.
struct ChaosWorld: Sendable {
    let harness: SyncHarness
    let ledger = ChaosLedger()
    let random: Locked<SplitMix64>
    let counter = Locked(0)
    static let fields = ["Name", "Industry"]

    init(harness: SyncHarness, seed: UInt64) async throws {
        self.harness = harness
        random = Locked(SplitMix64(seed: seed))
        _ = try await harness.createAccounts(20)
        let target = try SoqlSyncDownTarget(query: "SELECT Id, Name, Industry, LastModifiedDate FROM Account")
        try await harness.manager.syncDown(
            target: target, options: SyncOptions(mergeMode: .leaveIfChanged), soupName: "accounts", name: "accounts")
        try await harness.manager.startLiveSync(named: "accounts", options: LiveSyncOptions(initialBackoff: .milliseconds(50)))
    }

    func pick(_ count: Int) -> Int { random.withLock { Int($0.next() % UInt64(max(1, count))) } }
    func token(_ prefix: String) -> String {
        let number = counter.withLock { count in
            count += 1
            return count
        }
        return "\(prefix)-\(number)"
    }

    /// One round: two to four actors at once.
    func round(_ number: Int) async throws {
        let actors = (0..<(2 + pick(3))).map { _ in pick(12) }
        ledger.note("round \(number): \(actors)")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for actor in actors { group.addTask { try await act(actor) } }
            try await group.waitForAll()
        }
    }

    private func act(_ actor: Int) async throws {
        switch actor {
        case 0, 1: try await appEdit()
        case 2: try await appCreate()
        case 3: try await appDelete()
        case 4: try await staleUpsert()
        case 5, 6: try await syncUp()
        case 7: try await syncDown()
        case 8: try await cleanGhosts()
        case 9, 10: try await otherUser()
        default: await fault()
        }
    }

    private func entries() throws -> [JSONValue] {
        try harness.store.query(.all(soup: "accounts", orderPath: "_soupEntryId", pageSize: 10_000))
    }

    private func randomEntry() throws -> JSONValue? {
        let all = try entries().filter { $0["__locally_deleted__"] != true }
        return all.isEmpty ? nil : all[pick(all.count)]
    }

    private func appEdit() async throws {
        guard let entry = try randomEntry(), let entryId = entry["_soupEntryId"]?.int64Value else { return }
        let value = token("edit")
        do {
            try await harness.store.updateLocally(["Industry": .string(value)], entryId: entryId, in: "accounts")
            ledger.lastEdit.withLock { $0[entryId] = value }
            ledger.note("edit \(entryId) \(value)")
        } catch SmartStoreError.entryNotFound {
            ledger.note("edit \(entryId): gone")
        }
    }

    private func appCreate() async throws {
        let name = token("create")
        let entry = try await harness.store.createLocally(["Name": .string(name)], objectType: "Account", in: "accounts")
        ledger.created.withLock { _ = $0.insert(name) }
        ledger.note("create \(entry["_soupEntryId"]?.int64Value ?? -1) \(name)")
    }

    private func appDelete() async throws {
        guard pick(3) == 0, let entry = try randomEntry(), let entryId = entry["_soupEntryId"]?.int64Value else { return }
        do {
            _ = try await harness.store.deleteLocally(entryId: entryId, in: "accounts")
            ledger.deleted.withLock { _ = $0.insert(entryId) }
            ledger.lastEdit.withLock { $0[entryId] = nil }
            ledger.note("delete \(entryId)")
        } catch SmartStoreError.entryNotFound {}
    }

    /// The SDK's pattern: read, wait a little (a sync may write meanwhile), change, upsert whole.
    private func staleUpsert() async throws {
        // Mostly a dirty entry: the ones a sync is about to write.
        let dirty = try entries().filter { LocalFields.isDirty($0) && $0["__locally_deleted__"] != true }
        let chosen = pick(5) > 0 && !dirty.isEmpty ? dirty[pick(dirty.count)] : try randomEntry()
        guard let entry = chosen, let entryId = entry["_soupEntryId"]?.int64Value else { return }
        try await Task.sleep(for: .milliseconds(pick(200)))
        let value = token("upsert")
        var copy = entry
        copy["Industry"] = .string(value)
        copy["__local__"] = true
        if copy["__locally_created__"] != true { copy["__locally_updated__"] = true }
        do {
            try await harness.store.upsert(copy, in: "accounts")
            ledger.lastEdit.withLock { $0[entryId] = value }
            ledger.note("upsert \(entryId) \(value)")
        } catch let error as SmartStoreError {
            ledger.note("upsert \(entryId) refused: \(error)")
        }
    }

    private func syncUp() async throws {
        let mode: MergeMode = pick(2) == 0 ? .leaveIfChanged : .overwrite
        let target: any SyncUpTarget = [CollectionSyncUpTarget(), SingleRecordSyncUpTarget(), BatchSyncUpTarget()][pick(3)]
        let state = try await harness.manager.syncUp(
            target: target, options: SyncOptions(mergeMode: mode, fieldlist: Self.fields), soupName: "accounts")
        ledger.note(
            "sync up \(mode) \(target.json["type"]?.stringValue ?? ""): \(state.status.rawValue) failed \(state.failedRecordCount) conflicts \(state.conflictCount)"
        )
    }

    private func syncDown() async throws {
        do {
            ledger.note("resync: \(try await harness.manager.reSync(named: "accounts").status.rawValue)")
        } catch let error as SyncError {
            ledger.note("resync: \(error)") // running already (another actor's, the live sync's)
        }
    }

    private func cleanGhosts() async throws {
        guard let sync = try await harness.manager.syncStatus(named: "accounts") else { return }
        do {
            ledger.note("cleanup: \(try await harness.manager.cleanResyncGhosts(id: sync.id)) removed")
        } catch {
            ledger.note("cleanup: \(error)")
        }
    }

    /// Another user renames, creates or deletes a record on the server (a fault may refuse it).
    private func otherUser() async throws {
        do {
            try await otherUserWrites()
        } catch {
            ledger.note("other user: \(error)")
        }
    }

    private func otherUserWrites() async throws {
        let server = try await harness.client.allRecords("SELECT Id FROM Account ORDER BY Id").compactMap { $0["Id"]?.stringValue }
        switch pick(6) {
        case 0:
            let id = try await harness.client.create("Account", fields: ["Name": .string(token("theirs"))])
            ledger.note("other user creates \(id)")
        case 1 where !server.isEmpty:
            let id = server[pick(server.count)]
            _ = try await harness.client.deleteRecords([id])
            ledger.note("other user deletes \(id)")
        default:
            guard !server.isEmpty else { return }
            let id = server[pick(server.count)]
            let name = token("renamed")
            _ = try? await harness.client.update("Account", id: id, fields: ["Name": .string(name)])
            ledger.note("other user renames \(id) \(name)")
        }
    }

    /// A fault for the next write or query the sync makes.
    private func fault() async {
        let kinds: [FaultInjection.Kind] = [
            .serverError, .unavailable, .dropBefore, .dropAfter, .gatewayTimeoutBefore, .gatewayTimeoutAfter,
        ]
        let kind = kinds[pick(kinds.count)]
        await harness.localForce.faults.schedule(kind) { request in
            request.method != "GET" || request.segments.last == "query"
        }
        ledger.note("fault \(kind.rawValue)")
    }
}

extension ChaosWorld {
    /// Faults off, then sync up (LEAVE_IF_CHANGED, as often as it makes progress), resync and
    /// clean ghosts; returns each invariant broken.
    func settleAndCheck() async throws -> [String] {
        await harness.localForce.faults.cancelScheduled()
        try await harness.manager.stopLiveSync(named: "accounts")
        var settling: [String] = []
        for _ in 0..<4 {
            let up = try await harness.manager.syncUp(
                options: SyncOptions(mergeMode: .leaveIfChanged, fieldlist: Self.fields), soupName: "accounts")
            if up.status != .done { settling.append("settling sync up \(up.status.rawValue): \(up.error)") }
        }
        let down = try await harness.manager.reSync(named: "accounts")
        if down.status != .done { settling.append("settling resync \(down.status.rawValue): \(down.error)") }
        if let sync = try await harness.manager.syncStatus(named: "accounts") {
            _ = try await harness.manager.cleanResyncGhosts(id: sync.id)
        }
        return try await settling + problems()
    }

    private func problems() async throws -> [String] {
        var problems: [String] = []
        let local = try entries()
        let server = try await harness.client.allRecords("SELECT Id, Name, Industry FROM Account")
        let serverById = Dictionary(
            server.compactMap { record in record["Id"]?.stringValue.map { ($0, record) } }, uniquingKeysWith: { a, _ in a })
        var held: [String: Int] = [:]
        for entry in local { if let id = entry["Id"]?.stringValue, !LocalFields.isLocalId(id) { held[id, default: 0] += 1 } }
        problems += held.filter { $0.value > 1 }.map { "record \($0.key) held \($0.value) times" }
        for entry in local where !LocalFields.isDirty(entry) {
            guard let id = entry["Id"]?.stringValue, let record = serverById[id] else {
                problems.append("clean entry \(entry["_soupEntryId"] ?? nil) not on the server: \(entry)")
                continue
            }
            if record["Name"] != entry["Name"] || record["Industry"] != entry["Industry"] {
                problems.append("clean entry differs from the server: \(entry) vs \(record)")
            }
        }
        for entry in local where LocalFields.isDirty(entry) && entry["__last_error__"] == nil {
            problems.append("dirty entry without a reason: \(entry)")
        }
        let names = server.compactMap { $0["Name"]?.stringValue }
        for name in ledger.created.current where names.filter({ $0 == name }).count > 1 { problems.append("\(name) created twice") }
        problems += editsLost(local: local, server: serverById)
        for state in try SyncManager.syncStates(in: harness.store) where state.status == .running || state.status == .waiting {
            problems.append("sync \(state.id) left \(state.status.rawValue)")
        }
        return problems
    }

    /// The app's last edit of each entry still held: on the server, or the entry dirty with it.
    private func editsLost(local: [JSONValue], server: [String: JSONValue]) -> [String] {
        let byEntry = Dictionary(
            local.compactMap { entry in entry["_soupEntryId"]?.int64Value.map { ($0, entry) } }, uniquingKeysWith: { a, _ in a })
        var lost: [String] = []
        for (entryId, value) in ledger.lastEdit.current {
            guard let entry = byEntry[entryId] else { continue } // deleted: by a cleanup of a record gone on the server, or folded
            if LocalFields.isDirty(entry) { continue }
            let onServer = entry["Id"]?.stringValue.flatMap { server[$0] }?["Industry"]?.stringValue
            if onServer != value && entry["Industry"]?.stringValue != value {
                lost.append("edit \(value) of entry \(entryId) lost: entry \(entry), server \(onServer ?? "none")")
            }
        }
        return lost
    }
}

/// A small seeded generator (SplitMix64).
struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
