import FastJSON
import Foundation
import SalesforceREST
import SmartStore
import TestLocking
import TestSupport

@testable import LocalForce
@testable import MobileSync

/// A store file synced with a harness's org by this process's manager and by `msync`
/// children on the same file (another process: an app's extension), and the random actors of
/// ``InterleavingTests``.
struct ChaosWorld: Sendable {
    let harness: SyncHarness
    let folder: URL
    let store: SmartStore
    let manager: SyncManager
    let ledger = ChaosLedger()
    let random: Locked<SplitMix64>
    let counter = Locked(0)
    static let fields = ["Name", "Industry"]
    static let modes: [MergeMode] = [.leaveIfChanged, .overwrite, .mergeFields]
    /// How long a create whose answer was lost is held back here (`lostCreateWait`, in this
    /// process and the msync children): LocalForce ends a request within its late commit (half
    /// a second at most here) after its sender died, so ten seconds cover it, and a lost
    /// create is still sent again within a run.
    static let lostCreateSeconds = 10
    var storePath: String { folder.appendingPathComponent("store.sqlite").path }

    init(harness: SyncHarness, seed: UInt64) async throws {
        self.harness = harness
        random = Locked(SplitMix64(seed: seed))
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("chaos-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("store.sqlite").path
        store = try SmartStore(path: path)
        try store.registerSoup(
            "accounts",
            indexSpecs: [
                IndexSpec("Id", .string), IndexSpec("Name", .string), IndexSpec("LastModifiedDate", .string),
                IndexSpec("__sync_id__", .integer), IndexSpec("__local__", .string),
            ])
        manager = try SyncManager(store: store, client: harness.client, lostCreateWait: .seconds(Self.lostCreateSeconds))
        try Self.childSyncs.write(to: folder.appendingPathComponent("usersyncs.json"))
        _ = try await harness.createAccounts(20)
        let target = try SoqlSyncDownTarget(query: "SELECT Id, Name, Industry, LastModifiedDate FROM Account")
        try await manager.syncDown(
            target: target, options: SyncOptions(mergeMode: .leaveIfChanged), soupName: "accounts", name: "accounts")
        try await manager.startLiveSync(named: "accounts", options: LiveSyncOptions(initialBackoff: .milliseconds(50)))
    }

    /// The syncs an `msync sync` child runs: the resync of this process's `accounts` (the same
    /// definition, which the store keeps) and a LEAVE_IF_CHANGED collection sync up.
    static let childSyncs = Data(
        #"""
        {"syncs":[
          {"syncName":"accounts","syncType":"syncDown","soupName":"accounts","target":{"type":"soql","query":"SELECT Id, Name, Industry, LastModifiedDate FROM Account"},"options":{"mergeMode":"LEAVE_IF_CHANGED"}},
          {"syncName":"up","syncType":"syncUp","soupName":"accounts","target":{"type":"collection"},"options":{"fieldlist":["Name","Industry"],"mergeMode":"LEAVE_IF_CHANGED"}}]}
        """#.utf8)

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
        let actors = (0..<(2 + pick(3))).map { _ in pick(16) }
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
        case 5, 6: try await syncUp(manager, "sync up")
        case 7: try await syncDown()
        case 8: try await cleanGhosts()
        case 9, 10: try await otherUser()
        case 11: await fault()
        case 12, 15: try await resolveConflict()
        case 13: try await otherProcess()
        default: try await killedChild()
        }
    }

    func entries() throws -> [JSONValue] {
        try store.query(.all(soup: "accounts", orderPath: "_soupEntryId", pageSize: 10_000))
    }

    func randomEntry() throws -> JSONValue? {
        let all = try entries().filter { $0["__locally_deleted__"] != true }
        return all.isEmpty ? nil : all[pick(all.count)]
    }

    /// `updateLocally` of Industry.
    private func appEdit() async throws {
        guard let entry = try randomEntry(), let entryId = entry["_soupEntryId"]?.int64Value else { return }
        let value = token("edit")
        do {
            try await store.updateLocally(["Industry": .string(value)], entryId: entryId, in: "accounts")
            ledger.lastEdit.withLock { $0[entryId] = [value] }
            ledger.note("edit \(entryId) \(value)")
        } catch SmartStoreError.entryNotFound {
            ledger.note("edit \(entryId): gone")
        }
    }

    private func appCreate() async throws {
        let name = token("create")
        let entry = try await store.createLocally(["Name": .string(name)], objectType: "Account", in: "accounts")
        ledger.created.withLock { _ = $0.insert(name) }
        ledger.note("create \(entry["_soupEntryId"]?.int64Value ?? -1) \(name)")
    }

    private func appDelete() async throws {
        guard pick(3) == 0, let entry = try randomEntry(), let entryId = entry["_soupEntryId"]?.int64Value else { return }
        do {
            _ = try await store.deleteLocally(entryId: entryId, in: "accounts")
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
            try await store.upsert(copy, in: "accounts")
            ledger.lastEdit.withLock { $0[entryId] = [value] }
            ledger.note("upsert \(entryId) \(value)")
        } catch let error as SmartStoreError {
            ledger.note("upsert \(entryId) refused: \(error)")
        }
    }

    /// A sync up by `manager` in a random merge mode through a random target.
    func syncUp(_ manager: SyncManager, _ label: String) async throws {
        let mode = Self.modes[pick(Self.modes.count)]
        let target: any SyncUpTarget = [CollectionSyncUpTarget(), SingleRecordSyncUpTarget(), BatchSyncUpTarget()][pick(3)]
        let state = try await manager.syncUp(
            target: target, options: SyncOptions(mergeMode: mode, fieldlist: Self.fields), soupName: "accounts")
        ledger.note(
            "\(label) \(mode) \(target.json["type"]?.stringValue ?? ""): \(state.status.rawValue) failed \(state.failedRecordCount) conflicts \(state.conflictCount)"
        )
    }

    private func syncDown() async throws {
        do {
            ledger.note("resync: \(try await manager.reSync(named: "accounts").status.rawValue)")
        } catch let error as SyncError {
            ledger.note("resync: \(error)") // running already (another actor's, the live sync's)
        }
    }

    private func cleanGhosts() async throws {
        guard let sync = try await manager.syncStatus(named: "accounts") else { return }
        do {
            ledger.note("cleanup: \(try await manager.cleanResyncGhosts(id: sync.id)) removed")
        } catch {
            ledger.note("cleanup: \(error)")
        }
    }
}
