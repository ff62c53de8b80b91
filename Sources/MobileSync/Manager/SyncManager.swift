import FastJSON
import Foundation
import Locking
public import SalesforceREST
import SalesforceStreaming
public import SmartStore

/// Runs syncs between one store and one server, and keeps their state in `syncs_soup`.
///
/// <!-- snippet: Snippets/MobileSyncReference.swift#syncManager -->
/// ```swift
/// let manager = try SyncManager(store: store, client: client)
/// let target = try SoqlSyncDownTarget(query: "SELECT Id, Name FROM Account")
/// let state = try await manager.syncDown(target: target, soupName: "accounts", name: "accounts") { print($0.progress) }
/// ```
///
/// Creating a manager turns syncs a crash left RUNNING into STOPPED (not those another live
/// process is running: see ``OtherProcessPolicy``). Stop is cooperative:
/// running syncs stop between pages or batches and end STOPPED; `restart` resumes them.
/// Cancelling the task that runs a sync stops that sync the same way.
///
/// Syncs (and ghost cleanups) that write the same soup run one at a time, in the order they were
/// submitted: a sync up and an OVERWRITE sync down started without awaiting each other never
/// interleave. Syncs of different soups run at the same time, except that a run writing several
/// soups (a target names those besides the sync's own in ``SyncDownTarget/additionalSoupNames``)
/// waits for all of them, and later runs of any of them wait for it. A run stopped or cancelled
/// while it waits ends STOPPED without having started.
public actor SyncManager {
    /// Where the manager is in its stop/restart cycle.
    public enum State: String, Sendable {
        case acceptingSyncs = "ACCEPTING_SYNCS"
        case stopRequested = "STOP_REQUESTED"
        case stopped = "STOPPED"
    }

    /// The store whose soups the syncs read and write; sync states live in its `syncs_soup`.
    public nonisolated let store: SmartStore
    /// The client the syncs talk to the server through.
    public nonisolated let client: RestClient
    /// Resolves targets from their JSON when a sync runs again; register custom target types here.
    public nonisolated let targets: SyncTargetRegistry
    package static let soupName = "syncs_soup"
    /// Whether syncs are accepted, a stop is under way, or the manager is stopped.
    public nonisolated var state: State { lifecycle.withLock { $0.state } }
    /// The manager's state and the syncs (or ghost cleanups) running in it, under a lock so that
    /// ``stop()`` and the SDK's synchronous call shapes need not wait for the actor.
    private nonisolated let lifecycle = Locked(Lifecycle())
    /// The soup of each sync up running or waiting for its soup: a create attempt of that soup
    /// cannot be settled meanwhile (it may be on the wire). Sync ups of one soup run one at a
    /// time (``waitForSoups(_:)``): two at once would take each other's creates in flight for
    /// lost ones.
    private(set) var syncUpSoups: [Int64: String] = [:]
    private var listeners: [UUID: AsyncStream<SyncState>.Continuation] = [:]
    /// The streams of ``conflictUpdates()``.
    var conflictListeners: [UUID: AsyncStream<SyncConflict>.Continuation] = [:]
    /// Per soup, the runs that write it, in submission order: the first runs.
    private var soupQueues: [String: [Int]] = [:]
    /// The soups each queued run writes, by ticket.
    private var ticketSoups: [Int: Set<String>] = [:]
    /// Runs waiting for their turn, by ticket.
    private var waitingTickets: [Int: CheckedContinuation<Void, Never>] = [:]
    private var nextTicket = 0
    /// What a sync does when another process runs it or syncs one of its soups.
    public nonisolated let otherProcesses: OtherProcessPolicy
    /// How long after it was sent a create whose answer was lost may still land on the server:
    /// until then a sync up finding no such record holds it back (`CREATE_OUTCOME_PENDING`)
    /// rather than send it again and make a second one (see <doc:Guarantees>). Ten minutes by
    /// default, Salesforce's limit on a REST request's time.
    public nonisolated let lostCreateWait: Duration
    /// ``lostCreateWait`` in milliseconds (at most a day).
    nonisolated var lostCreateWaitMilliseconds: Int64 {
        let (seconds, attoseconds) = min(max(lostCreateWait, .zero), .seconds(86_400)).components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
    /// ``lostCreateWait`` unless the manager is given another.
    public static let defaultLostCreateWait = Duration.seconds(600)
    /// Running live syncs, by sync id (see ``startLiveSync(named:options:)``).
    var liveTasks: [Int64: (task: Task<Void, Never>, options: LiveSyncOptions, run: UUID)] = [:]
    /// The streaming client of each live sync, so that a stop ends its long poll at once.
    var liveClients: [Int64: StreamingClient] = [:]
    /// Live syncs a ``stop()`` paused, resumed by ``restart(restartStoppedSyncs:onUpdate:)``.
    var pausedLive: [Int64: LiveSyncOptions] = [:]
    /// The streams of ``liveChanges()``.
    var liveChangeListeners: [UUID: AsyncStream<LiveChange>.Continuation] = [:]
    /// Periodic runs of named syncs (see ``schedule(_:every:maximumBackoff:)``), by id.
    var schedules: [UUID: (task: Task<Void, Never>, info: SyncSchedule)] = [:]

    /// A manager for `store` and `client`: registers `syncs_soup` if needed and turns syncs a crash left RUNNING into STOPPED.
    ///
    /// A store has one manager per process: this throws ``SyncError/invalidSyncState(_:)`` while
    /// another manager of the same store file is alive. ``shared(for:client:targets:otherProcesses:)`` returns
    /// that one instead.
    ///
    /// - Parameters:
    ///   - store: the store whose soups the syncs read and write.
    ///   - client: the client the syncs talk to the server through.
    ///   - targets: the registry for target JSON; nil: a new one with the built-in types.
    ///   - otherProcesses: what a sync does while another process runs it or syncs one of its
    ///     soups (by default it waits, at most a minute).
    ///   - lostCreateWait: how long a create whose answer was lost may still land (see
    ///     ``lostCreateWait``); zero sends one found missing again at once.
    /// - Throws: the store's error when `syncs_soup` cannot be registered or read.
    public init(
        store: SmartStore, client: RestClient, targets: SyncTargetRegistry? = nil, otherProcesses: OtherProcessPolicy = .default,
        lostCreateWait: Duration = defaultLostCreateWait
    ) throws {
        self.store = store
        self.client = client
        self.targets = targets ?? SyncTargetRegistry()
        self.otherProcesses = otherProcesses
        self.lostCreateWait = lostCreateWait
        // Crash recovery and registration together: a second manager must not take this one's
        // running syncs for crashed ones, nor be handed out before its recovery ran.
        try Self.register(self, for: store) { [targets = self.targets] in try Self.setUpSyncsSoup(store, targets: targets) }
    }

    /// From now on, each record of these soups keeps its base (its state as last synced) while
    /// it is dirty: the state it had when `__local__` was set, kept by the store itself however
    /// the record was edited (``SyncConflict``, MERGE_FIELDS). Soups the store lacks are skipped.
    static func keepBases(of soups: [String], in store: SmartStore) throws {
        for soup in Set(soups) where try store.hasSoup(soup) {
            try store.captureShadow(ConflictShadows.base, inSoup: soup, whenFlagSet: LocalFields.local)
        }
    }

    private static func setUpSyncsSoup(_ store: SmartStore, targets: SyncTargetRegistry) throws {
        try store.registerSoup(soupName, indexSpecs: [IndexSpec("type", .json1), IndexSpec("name", .json1), IndexSpec("status", .json1)])
        // Bases for the soups of existing syncs (stores made before bases were kept, alters).
        let documents = try store.query(.all(soup: soupName, orderPath: "_soupEntryId", pageSize: 100_000))
        for sync in documents.compactMap({ try? SyncState(document: $0) }) {
            let extra =
                sync.kind == .syncDown
                ? (try? targets.syncDownTarget(sync.target))?.additionalSoupNames
                : (try? targets.syncUpTarget(sync.target))?.additionalSoupNames
            try keepBases(of: [sync.soupName] + (extra ?? []), in: store)
        }
        // Crash recovery: a sync left RUNNING (or WAITING) whose lock no live process holds was
        // running in a process that died; one another process is running keeps its state.
        for status in [SyncState.Status.running, .waiting] {
            for document in try store.query(.exact(soup: soupName, path: "status", key: .string(status.rawValue), pageSize: 10_000)) {
                var sync = try SyncState(document: document)
                guard let lock = store.tryLock(["sync:\(sync.id)"]) else { continue }
                defer { lock.release() }
                sync.status = .stopped
                try store.upsert(sync.document, in: soupName)
            }
        }
    }

    // MARK: - State updates

    /// Every state update of every sync of this manager, from now on.
    public func updates() -> AsyncStream<SyncState> {
        let (stream, continuation) = AsyncStream<SyncState>.makeStream()
        let id = UUID()
        listeners[id] = continuation
        continuation.onTermination = { _ in Task { await self.removeListener(id) } }
        return stream
    }

    private func removeListener(_ id: UUID) { listeners[id] = nil }

    /// Saves the state and tells listeners. The live state is the live sync's to write: it is
    /// taken as stored, so that a run's older copy never undoes a live sync's progress or stop.
    /// Only a sync that runs live, or ran live once, pays that read (a sync down saves per page).
    func save(_ sync: inout SyncState, onUpdate: (@Sendable (SyncState) -> Void)?) async throws {
        if sync.id > 0, sync.live != nil || liveTasks[sync.id] != nil,
            let stored = try await store.retrieve([sync.id], from: Self.soupName).first
        {
            sync.live = stored["live"].flatMap { $0.objectValue == nil ? nil : LiveSyncInfo(json: $0) }
        }
        let saved = try await store.upsert(sync.document, in: Self.soupName)
        announce(&sync, saved: saved, onUpdate: onUpdate)
    }

    /// Tells ``updates()`` listeners of a state saved outside a run (a live sync's status).
    func tellListeners(_ sync: SyncState) {
        for continuation in listeners.values { continuation.yield(sync) }
    }

    /// Takes the entry id the store gave the state and tells listeners.
    private func announce(_ sync: inout SyncState, saved: JSONValue, onUpdate: (@Sendable (SyncState) -> Void)?) {
        sync.id = saved["_soupEntryId"]?.int64Value ?? sync.id
        onUpdate?(sync)
        for continuation in listeners.values { continuation.yield(sync) }
    }

    /// Saves a state a target advanced (see ``SyncContext/save(_:)``) and returns it as saved.
    func saved(_ sync: SyncState, onUpdate: (@Sendable (SyncState) -> Void)?) async throws -> SyncState {
        var sync = sync
        try await save(&sync, onUpdate: onUpdate)
        return sync
    }

    // MARK: - Creating and finding syncs

    /// Creates a sync down (status NEW) without running it.
    public func createSyncDown(target: any SyncDownTarget, options: SyncOptions = SyncOptions(), soupName: String, name: String? = nil)
        throws -> SyncState
    {
        try create(
            SyncState(kind: .syncDown, name: name, target: target.json, options: options, soupName: soupName),
            soups: [soupName] + target.additionalSoupNames)
    }

    /// Creates a sync up (status NEW) without running it.
    public func createSyncUp(target: any SyncUpTarget, options: SyncOptions = SyncOptions(), soupName: String, name: String? = nil) throws
        -> SyncState
    {
        try create(
            SyncState(kind: .syncUp, name: name, target: target.json, options: options, soupName: soupName),
            soups: [soupName] + target.additionalSoupNames)
    }

    private func create(_ sync: SyncState, soups: [String]) throws -> SyncState {
        var created = try createNow(sync, soups: soups)
        announce(&created, saved: created.document, onUpdate: nil)
        return created
    }

    /// Saves a new sync's state (status NEW) without announcing it: for the SDK's synchronous
    /// call shapes, which announce it when it runs.
    /// The name is checked and the state saved in one write transaction, so processes that
    /// create the same named sync at once (an app and its extension applying one config on first
    /// launch) make it once: the others get ``SyncError/duplicateName(_:)``.
    package nonisolated func createNow(_ sync: SyncState, soups: [String]) throws -> SyncState {
        guard try store.hasSoup(sync.soupName) else { throw SmartStoreError.unknownSoup(sync.soupName) }
        try Self.keepBases(of: soups, in: store)
        let document = sync.document
        let id = try store.inTransaction { tx in
            if let name = sync.name,
                try !tx.query(.exact(soup: Self.soupName, path: "name", key: .string(name), pageSize: 1)).isEmpty
            {
                throw SyncError.duplicateName(name)
            }
            return try tx.upsert([document], in: Self.soupName).first?["_soupEntryId"]?.int64Value
        }
        var created = sync
        created.id = id ?? sync.id
        return created
    }

    /// Runs a sync that ``claim(_:running:)`` marked running, with its target when it was just
    /// created (the SDK's call shapes); `resuming`: a resync.
    package func runClaimed(
        _ sync: SyncState, down: (any SyncDownTarget)? = nil, up: (any SyncUpTarget)? = nil, resuming: Bool = false,
        onUpdate: @escaping @Sendable (SyncState) -> Void
    ) async throws -> SyncState {
        try await run(sync, down: down, up: up, resuming: resuming, claimed: true, onUpdate: onUpdate)
    }

    /// Marks a sync (or its ghost cleanup, `running` names it) running in this manager, without
    /// the actor, unless the manager is stopping or stopped or it runs already: the SDK's
    /// synchronous call shapes refuse at once what the run would refuse. Undo with
    /// ``unclaim(_:)`` when the run does not follow.
    package nonisolated func claim(_ id: Int64, running task: String? = nil) throws {
        try lifecycle.withLock { lifecycle in
            guard lifecycle.state == .acceptingSyncs else { throw SyncError.managerStopped(lifecycle.state.rawValue) }
            guard lifecycle.active.insert(id).inserted else {
                guard let task else { throw SyncError.stillRunning(id: id) }
                throw SyncError.invalidSyncState("Cannot run \(task):\(id): still running")
            }
        }
    }

    /// Accepts syncs again without the actor and resumes the live syncs ``stop()`` paused (on the
    /// actor, unless a stop came first): the SDK's synchronous `restart`.
    package nonisolated func acceptSyncs() {
        lifecycle.withLock { $0.state = .acceptingSyncs }
        Task { await self.resumeLiveSyncs() }
    }

    /// Whether the sync runs in this manager now (read without the actor).
    package nonisolated func isRunning(_ id: Int64) -> Bool { lifecycle.withLock { $0.active.contains(id) } }

    /// Ends what ``claim(_:running:)`` marked: the run ended or never started.
    package nonisolated func unclaim(_ id: Int64) {
        lifecycle.withLock { lifecycle in
            lifecycle.active.remove(id)
            if lifecycle.active.isEmpty && lifecycle.state == .stopRequested { lifecycle.state = .stopped }
        }
    }

    /// The sync with this id, or nil.
    public func syncStatus(id: Int64) throws -> SyncState? {
        try store.retrieve([id], from: Self.soupName).first.map(SyncState.init(document:))
    }

    /// The sync with this name, or nil.
    public func syncStatus(named name: String) throws -> SyncState? { try storedSync(named: name) }

    /// The named sync's state as stored (read without the actor: only the store is read).
    package nonisolated func storedSync(named name: String) throws -> SyncState? {
        try store.query(.exact(soup: Self.soupName, path: "name", key: .string(name), pageSize: 1)).first.map(SyncState.init(document:))
    }

    /// Whether a sync with this name exists.
    public func hasSync(named name: String) throws -> Bool { try syncStatus(named: name) != nil }

    /// Deletes a sync's state (its records stay).
    public func deleteSync(id: Int64) throws { try store.delete([id], from: Self.soupName) }

    /// Deletes the named sync's state (its records stay).
    ///
    /// - Throws: ``SyncError/notFound(_:)`` when there is no sync of that name.
    public func deleteSync(named name: String) throws {
        guard let sync = try syncStatus(named: name) else { throw SyncError.notFound(name) }
        try deleteSync(id: sync.id)
    }

    private func require(_ id: Int64) throws -> SyncState {
        guard let sync = try syncStatus(id: id) else { throw SyncError.notFound(String(id)) }
        return sync
    }

    // MARK: - Running

    /// Creates and runs a sync down with `target`. Resyncs and ghost cleanups rebuild the
    /// target from its ``SyncDownTarget/json`` through ``targets``: register a custom type there.
    @discardableResult
    public func syncDown(
        target: any SyncDownTarget, options: SyncOptions = SyncOptions(), soupName: String, name: String? = nil,
        onUpdate: (@Sendable (SyncState) -> Void)? = nil
    ) async throws -> SyncState {
        let sync = try createSyncDown(target: target, options: options, soupName: soupName, name: name)
        return try await run(sync, down: target, onUpdate: onUpdate)
    }

    /// Creates and runs a sync up with `target`. Resyncs rebuild the target from its
    /// ``SyncUpTarget/json`` through ``targets``: register a custom type there.
    @discardableResult
    public func syncUp(
        target: any SyncUpTarget = CollectionSyncUpTarget(), options: SyncOptions = SyncOptions(), soupName: String,
        name: String? = nil, onUpdate: (@Sendable (SyncState) -> Void)? = nil
    ) async throws -> SyncState {
        let sync = try createSyncUp(target: target, options: options, soupName: soupName, name: name)
        return try await run(sync, up: target, onUpdate: onUpdate)
    }

    /// Runs an existing sync again: a sync down fetches what changed since its last run
    /// (`>=` its boundary after a stop), a sync up sends what is dirty now.
    @discardableResult
    public func reSync(id: Int64, onUpdate: (@Sendable (SyncState) -> Void)? = nil) async throws -> SyncState {
        let sync = try require(id)
        return try await run(sync, resuming: true, onUpdate: onUpdate)
    }

    /// Runs the named sync again.
    @discardableResult
    public func reSync(named name: String, onUpdate: (@Sendable (SyncState) -> Void)? = nil) async throws -> SyncState {
        guard let sync = try syncStatus(named: name) else { throw SyncError.notFound(name) }
        return try await reSync(id: sync.id, onUpdate: onUpdate)
    }

    /// Runs a sync with the target given (its first run: a custom target need not be
    /// registered), else the one its JSON resolves to through ``targets``. The sync waits for
    /// its turn in this process, then for other processes (``otherProcesses``), and starts from
    /// its state as stored then (another process may have run it meanwhile); `resuming`: a
    /// resync, which refetches a stopped sync down's boundary.
    private func run(
        _ initial: SyncState, down: (any SyncDownTarget)? = nil, up: (any SyncUpTarget)? = nil, resuming: Bool = false,
        claimed: Bool = false, onUpdate: (@Sendable (SyncState) -> Void)?
    ) async throws -> SyncState {
        try begin(initial.id, running: nil, syncUpOf: initial.kind == .syncUp ? initial.soupName : nil, claimed: claimed)
        defer { finish(initial.id) }
        let down = initial.kind == .syncDown ? (down ?? (try? targets.syncDownTarget(initial.target))) : nil
        let up = initial.kind == .syncUp ? (up ?? (try? targets.syncUpTarget(initial.target))) : nil
        let soups = [initial.soupName] + (down?.additionalSoupNames ?? up?.additionalSoupNames ?? [])
        let ticket = await waitForSoups(soups)
        defer { leaveSoups(ticket) }
        let locks = try await lockAgainstOtherProcesses(initial, soups: soups, onUpdate: onUpdate)
        defer { for lock in locks ?? [] { lock.release() } }
        var sync = (try? syncStatus(id: initial.id)) ?? initial
        if locks == nil || state != .acceptingSyncs || Task.isCancelled {
            // Stopped or cancelled while it waited for its turn: it never ran. Only the holder
            // of the sync's lock writes its state (another process may be running it).
            sync.status = .stopped
            if locks != nil { try await save(&sync, onUpdate: onUpdate) }
            return sync
        }
        if resuming {
            if sync.status == .stopped || sync.status == .failed, sync.kind == .syncDown {
                // Refetch records at the boundary (saved per page) a stop or a failure may have
                // cut through, whatever the target.
                sync.maxTimeStamp = max(sync.maxTimeStamp, 0) - 1
            }
            sync.totalSize = -1
        }
        sync.status = .running
        sync.progress = 0
        sync.startTime = Self.now()
        sync.error = ""
        sync.failedRecordCount = 0
        sync.conflictCount = 0
        (sync.pagesFetched, sync.recordsFetched, sync.recordsDeleted) = (0, 0, 0)
        try await save(&sync, onUpdate: onUpdate)
        let context = SyncContext(manager: self, onUpdate: onUpdate)
        do {
            switch sync.kind {
            // A target whose JSON did not resolve above throws its error here.
            case .syncDown: try await (down ?? targets.syncDownTarget(sync.target)).syncDown(&sync, context: context)
            case .syncUp: try await (up ?? targets.syncUpTarget(sync.target)).syncUp(&sync, context: context)
            }
            sync.status = .done
            sync.progress = 100
        } catch SyncError.stopped {
            sync.status = .stopped
        } catch  where Task.isCancelled {
            // A cancelled task stops like `stop()`: STOPPED, resumable by reSync.
            sync.status = .stopped
        } catch {
            sync.status = .failed
            sync.error = "\(error)"
        }
        return try await ended(sync, context: context, soups: soups, onUpdate: onUpdate)
    }

    /// Saves a run's final state. After a sync up, the live syncs of its soups read again the
    /// records whose changes they skipped while those were dirty (``LiveSyncInfo/pendingRereads``).
    private func ended(_ sync: SyncState, context: SyncContext, soups: [String], onUpdate: (@Sendable (SyncState) -> Void)?)
        async throws -> SyncState
    {
        var sync = sync
        sync.conflictCount += context.conflictTally.current
        sync.endTime = Self.now()
        try await save(&sync, onUpdate: onUpdate)
        if sync.kind == .syncUp { await rereadForLiveSyncs(of: soups) }
        return sync
    }

    /// Takes the sync's lock and its soups' for this run (see ``OtherProcessPolicy``); nil when
    /// a stop or a cancellation ended the wait, with the sync's state STOPPED if this process
    /// held its lock by then.
    ///
    /// - Throws: ``SyncError/runningInAnotherProcess(_:)``, the state put back as it was.
    private func lockAgainstOtherProcesses(_ initial: SyncState, soups: [String], onUpdate: (@Sendable (SyncState) -> Void)?)
        async throws -> [StoreLock]?
    {
        var before: SyncState?
        let label = "sync \(initial.name ?? String(initial.id)) of soup \(soups.joined(separator: ", "))"
        let outcome = try await processLocks(syncId: initial.id, soups: soups, label: label) {
            var waiting = (try? syncStatus(id: initial.id)) ?? initial
            before = waiting
            waiting.status = .waiting
            try await save(&waiting, onUpdate: onUpdate)
        }
        switch outcome {
        case .acquired(let locks):
            return locks
        case .stopped(let own):
            defer { own?.release() }
            if own != nil, var stopped = (try? syncStatus(id: initial.id)) ?? before {
                stopped.status = .stopped
                try await save(&stopped, onUpdate: onUpdate)
            }
            return nil
        case .busy(let message, let own):
            defer { own?.release() }
            if own != nil, var restored = before {
                try await save(&restored, onUpdate: onUpdate)
            }
            throw SyncError.runningInAnotherProcess(message)
        }
    }

    /// Marks a sync (or its ghost cleanup, `running` names it) active, unless the manager is
    /// stopping or the sync or its cleanup runs already (or `claimed`: ``claim(_:running:)``
    /// marked it); a sync up is recorded with its soup (`syncUpOf`), on the actor, so that
    /// ``resolveCreateAttempt(entryId:soupName:adopting:idFieldName:)`` sees it.
    func begin(_ id: Int64, running task: String?, syncUpOf soup: String? = nil, claimed: Bool = false) throws {
        if !claimed { try claim(id, running: task) }
        if let soup { syncUpSoups[id] = soup }
    }

    /// Takes a place in the queue of each soup and returns once this run is first in all of
    /// them. The places are taken with no suspension, so the order is the order of the calls.
    func waitForSoups(_ soups: [String]) async -> Int {
        let ticket = nextTicket
        nextTicket += 1
        let unique = Set(soups)
        ticketSoups[ticket] = unique
        for soup in unique { soupQueues[soup, default: []].append(ticket) }
        if !isFirstInItsSoups(ticket) {
            await withTaskCancellationHandler {
                await withCheckedContinuation { waitingTickets[ticket] = $0 }
            } onCancel: {
                // Runs after this turn has stored the continuation (it needs the actor).
                Task { await self.stopWaiting(ticket) }
            }
        }
        return ticket
    }

    /// Lets a cancelled run stop waiting for its turn (it keeps its places until it leaves).
    private func stopWaiting(_ ticket: Int) {
        waitingTickets.removeValue(forKey: ticket)?.resume()
    }

    /// Leaves the queues of the run's soups and wakes the runs now first in all of theirs.
    func leaveSoups(_ ticket: Int) {
        for soup in ticketSoups.removeValue(forKey: ticket) ?? [] {
            soupQueues[soup]?.removeAll { $0 == ticket }
            if soupQueues[soup]?.isEmpty == true { soupQueues[soup] = nil }
        }
        for waiting in waitingTickets.keys.sorted() where isFirstInItsSoups(waiting) {
            waitingTickets.removeValue(forKey: waiting)?.resume()
        }
    }

    private func isFirstInItsSoups(_ ticket: Int) -> Bool {
        (ticketSoups[ticket] ?? []).allSatisfy { soupQueues[$0]?.first == ticket }
    }

    func finish(_ id: Int64) {
        syncUpSoups[id] = nil
        unclaim(id)
    }

    /// Throws ``SyncError/stopped`` when a stop was requested or the calling task was cancelled
    /// (checked between pages and batches).
    func checkStop() throws {
        if state != .acceptingSyncs || Task.isCancelled { throw SyncError.stopped }
    }

    // MARK: - Stop and restart

    /// Asks running syncs to stop at their next page or batch, and pauses live syncs as soon as
    /// the actor is free; new syncs are refused from now until `restart`. It returns without
    /// waiting, as the SDK's does: ``isStopped`` tells when the last sync has ended.
    public nonisolated func stop() {
        lifecycle.withLock { $0.state = $0.active.isEmpty ? .stopped : .stopRequested }
        Task { await self.pauseLiveSyncsIfStopping() }
    }

    /// Whether a stop was asked while syncs still run (they end at their next page or batch).
    public nonisolated var isStopping: Bool { state == .stopRequested }
    /// Whether the manager is stopped: no sync runs and new ones are refused until ``restart(restartStoppedSyncs:onUpdate:)``.
    public nonisolated var isStopped: Bool { state == .stopped }

    /// Accepts syncs again, resumes the live syncs ``stop()`` paused and, if asked, resyncs
    /// every STOPPED sync.
    @discardableResult
    public func restart(restartStoppedSyncs: Bool, onUpdate: (@Sendable (SyncState) -> Void)? = nil) async throws -> [SyncState] {
        lifecycle.withLock { $0.state = .acceptingSyncs }
        resumeLiveSyncs()
        guard restartStoppedSyncs else { return [] }
        var results: [SyncState] = []
        for document in try await store.query(.exact(soup: Self.soupName, path: "status", key: "STOPPED", pageSize: 10_000)) {
            let sync = try SyncState(document: document)
            results.append(try await reSync(id: sync.id, onUpdate: onUpdate))
        }
        return results
    }

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
}

/// A manager's state and the ids of the syncs (and ghost cleanups) running in it.
struct Lifecycle: Sendable {
    var state: SyncManager.State = .acceptingSyncs
    var active: Set<Int64> = []
}
