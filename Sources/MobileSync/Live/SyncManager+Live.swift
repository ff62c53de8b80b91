import FastJSON
import Foundation
import SalesforceStreaming

extension SyncManager {
    /// Runs a SOQL sync down live: it subscribes to its object's Change Data Capture events
    /// and brings the soup up to date as changes commit on the server, without polling.
    ///
    /// Events are applied from their own fields where they can be (a record held locally and
    /// not dirty, a created record when the query takes every record of the object, deletes);
    /// anything else (a query with a filter, relationship fields, gap events) is read by a
    /// resync, one per burst. A dirty local record is never overwritten by an event. The last
    /// event applied is kept in the sync's ``SyncState/live``: after a restart the sync
    /// resumes from it without a gap; when the server no longer has it, the sync says so and
    /// runs a full resync. It reconnects with backoff after a network loss, and resyncs every
    /// ``LiveSyncOptions/pollInterval`` when the server has no Streaming API. Its status is in
    /// ``SyncState/live`` and every ``updates()`` listener hears of it.
    ///
    /// Runs until ``stopLiveSync(named:)`` or ``stop()``; starting a sync already live does nothing.
    ///
    /// - Throws: ``SyncError/notFound(_:)``, ``SyncError/invalidTarget(_:)`` for a sync that is
    ///   not a SOQL sync down, ``SyncError/managerStopped(_:)`` while the manager is stopped.
    public func startLiveSync(named name: String, options: LiveSyncOptions = LiveSyncOptions()) throws {
        guard let sync = try syncStatus(named: name) else { throw SyncError.notFound(name) }
        try startLiveSync(id: sync.id, options: options)
    }

    /// Runs the sync `id` live; see ``startLiveSync(named:options:)``.
    public func startLiveSync(id: Int64, options: LiveSyncOptions = LiveSyncOptions()) throws {
        guard state == .acceptingSyncs else { throw SyncError.managerStopped(state.rawValue) }
        _ = try liveTarget(id)
        guard liveTasks[id] == nil else { return }
        let run = UUID()
        let runner = LiveSyncRunner(manager: self, syncId: id, run: run, options: options)
        liveTasks[id] = (
            Task {
                await runner.run()
                self.liveRunEnded(id, run: run)
            }, options, run
        )
    }

    /// Starts every sync whose options say `"live": true` (``SyncOptions/live``); returns the
    /// names of those started. One that cannot be live (not a SOQL sync down) is left stopped,
    /// with the reason in its ``SyncState/live`` note.
    @discardableResult
    public func startLiveSyncs(options: LiveSyncOptions = LiveSyncOptions()) throws -> [String] {
        guard state == .acceptingSyncs else { throw SyncError.managerStopped(state.rawValue) }
        var started: [String] = []
        for document in try store.query(.exact(soup: Self.soupName, path: "type", key: "syncDown", pageSize: 10_000)) {
            guard let sync = try? SyncState(document: document), sync.options.live else { continue }
            do {
                try startLiveSync(id: sync.id, options: options)
                started.append(sync.name ?? String(sync.id))
            } catch {
                // Not one that can be live (not a SOQL sync down): said in its state, the others start.
                try? updateLiveNow(sync.id) {
                    $0.status = .stopped
                    $0.note = "\(error)"
                }
            }
        }
        return started
    }

    /// Stops a live sync: its status becomes ``LiveStatus/stopped`` and its long poll ends. It
    /// returns once the server has answered the sync's `/meta/disconnect` (which answers its
    /// pending connect too) or 10 s have passed, also when the sync's own loop was
    /// disconnecting at that moment: an org stopped right after finds no connect pending.
    public func stopLiveSync(named name: String) async throws {
        guard let sync = try syncStatus(named: name) else { throw SyncError.notFound(name) }
        await stopLiveSync(id: sync.id)
    }

    /// Stops the live sync `id`; see ``stopLiveSync(named:)``.
    public func stopLiveSync(id: Int64) async {
        guard let (task, _, _) = liveTasks.removeValue(forKey: id) else { return }
        task.cancel()
        try? updateLiveNow(id) { $0.status = .stopped }
        await liveClients.removeValue(forKey: id)?.disconnect()
    }

    /// The names (or ids) of the syncs running live.
    public var liveSyncNames: [String] {
        liveTasks.keys.sorted().map { id in (try? syncStatus(id: id))??.name ?? String(id) }
    }

    /// Every change the live syncs bring into the store (or cannot), as they happen.
    public func liveChanges() -> AsyncStream<LiveChange> {
        // A listener that stops reading keeps the newest changes only.
        let (stream, continuation) = AsyncStream<LiveChange>.makeStream(bufferingPolicy: .bufferingNewest(10_000))
        let id = UUID()
        liveChangeListeners[id] = continuation
        continuation.onTermination = { _ in Task { await self.removeLiveChangeListener(id) } }
        return stream
    }

    private func removeLiveChangeListener(_ id: UUID) { liveChangeListeners[id] = nil }

    // MARK: - For the runner

    /// The sync and its SOQL target, or ``SyncError/invalidTarget(_:)``.
    func liveTarget(_ id: Int64) throws -> (SyncState, SoqlSyncDownTarget) {
        guard let sync = try syncStatus(id: id) else { throw SyncError.notFound(String(id)) }
        guard sync.kind == .syncDown, let target = try? targets.syncDownTarget(sync.target) as? SoqlSyncDownTarget else {
            throw SyncError.invalidTarget("A live sync needs a SOQL sync down: \(sync.name ?? String(id)) is not one")
        }
        return (sync, target)
    }

    /// A live sync's loop ended on its own (its sync was deleted, or is no longer one that can
    /// be live): it no longer counts as running.
    func liveRunEnded(_ id: Int64, run: UUID) {
        guard liveTasks[id]?.run == run else { return }
        liveTasks[id] = nil
        liveClients[id] = nil
    }

    func setLiveClient(_ client: StreamingClient, for id: Int64, run: UUID) {
        guard liveTasks[id]?.run == run else { return }
        liveClients[id] = client
    }

    /// Changes a sync's stored live state and tells ``updates()`` listeners, for the run that
    /// is current (an older, stopped one writes nothing).
    func updateLive(_ id: Int64, run: UUID, _ change: (inout LiveSyncInfo) -> Void) async throws {
        guard liveTasks[id]?.run == run else { return }
        try updateLiveNow(id, change)
    }

    func updateLiveNow(_ id: Int64, _ change: (inout LiveSyncInfo) -> Void) throws {
        guard var sync = try syncStatus(id: id) else { return }
        var info = sync.live ?? LiveSyncInfo()
        change(&info)
        guard info != sync.live else { return }
        sync.live = info
        let saved = try store.upsert(sync.document, in: Self.soupName)
        sync.id = saved["_soupEntryId"]?.int64Value ?? sync.id
        tellListeners(sync)
    }

    /// Records what a live run applied: the last replay id and the counters, whatever the
    /// run's status (a stopped run's last batch is in the store too).
    func recordLiveProgress(_ id: Int64, replayId: Int64, applied: Int, skipped: [String]) throws {
        try updateLiveNow(id) { info in
            info.replayId = replayId
            info.appliedChanges += applied
            info.skippedDirty += skipped.count
            info.pendingRereads.formUnion(skipped)
            if info.pendingRereads.count > LiveSyncInfo.maximumRereads {
                info.pendingRereads = []
                info.owesFullResync = true
            }
        }
    }

    /// Forgets a sync down's boundary, so that its next resync reads everything (a full resync).
    func resetBoundary(_ id: Int64) throws {
        guard var sync = try syncStatus(id: id) else { return }
        sync.maxTimeStamp = -1
        _ = try store.upsert(sync.document, in: Self.soupName)
    }

    func announce(_ changes: [LiveChange]) {
        for change in changes {
            for continuation in liveChangeListeners.values { continuation.yield(change) }
        }
    }

    /// Pauses the live syncs unless a restart came first (``stop()`` asks from outside the actor).
    func pauseLiveSyncsIfStopping() {
        guard state != .acceptingSyncs else { return }
        for (id, entry) in liveTasks {
            pausedLive[id] = entry.options
            entry.task.cancel()
            try? updateLiveNow(id) { $0.status = .stopped }
        }
        let clients = Array(liveClients.values)
        liveTasks = [:]
        liveClients = [:]
        Task { for client in clients { await client.disconnect() } }
    }

    /// Resumes the live syncs ``stop()`` paused, unless a stop came again.
    func resumeLiveSyncs() {
        guard state == .acceptingSyncs else { return }
        let paused = pausedLive
        pausedLive = [:]
        for (id, options) in paused { try? startLiveSync(id: id, options: options) }
    }
}
