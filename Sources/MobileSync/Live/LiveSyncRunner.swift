import FastJSON
import Foundation
import SalesforceREST
import SalesforceStreaming

/// The loop of one live sync: subscribe to its object's change events (from the last one
/// applied), catch up, apply events as they come; reconnect with backoff after a failure;
/// poll with resyncs when the server has no Streaming API.
struct LiveSyncRunner: Sendable {
    let manager: SyncManager
    let syncId: Int64
    /// This run: a stopped run that wakes late writes nothing.
    let run: UUID
    let options: LiveSyncOptions

    func run() async {
        var backoff = options.initialBackoff
        while !Task.isCancelled {
            do {
                try await follow { backoff = options.initialBackoff }
            } catch let error as StreamingError where error.meansNoStreaming {
                do {
                    try await poll(because: error)
                } catch {
                    if Task.isCancelled { break }
                }
            } catch SyncError.notFound(let what) {
                await update {
                    $0.status = .stopped
                    $0.note = "Sync \(what) no longer exists"
                }
                break
            } catch SyncError.invalidTarget(let message) {
                await update {
                    $0.status = .stopped
                    $0.note = message
                }
                break
            } catch {
                if Task.isCancelled || error is CancellationError { break }
                if case SyncError.stopped = error { break }
                let message = "\(Self.describe(error)); retrying in \(backoff)"
                await update {
                    $0.status = .connecting
                    $0.note = message
                }
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, options.maximumBackoff)
            }
        }
    }

    /// Subscribes, catches up and applies events until something fails (it never returns otherwise).
    private func follow(resetBackoff: () -> Void) async throws {
        let (sync, target) = try await manager.liveTarget(syncId)
        let shape = target.liveShape
        let channel = StreamingClient.changeEventChannel(for: shape.objectName)
        let streaming = StreamingClient(client: manager.client)
        await manager.setLiveClient(streaming, for: syncId, run: run)
        defer { Task { await streaming.disconnect() } }
        await update { $0.status = .connecting }
        try await streaming.handshake()
        let (fallback, subscribedFresh) = try await subscribe(streaming, to: channel, after: sync.live?.replayId)
        // Connects start now and never pause: a client that does not connect for 40 s is
        // forgotten by the server with its subscription, and a catch-up or a resync may take
        // longer. What arrives meanwhile waits in `batches`, in order.
        let (batches, pump) = Self.pump(streaming)
        defer { pump.cancel() }
        let owed = try await manager.syncStatus(id: syncId)?.live
        let duties = [owed?.owesFullResync == true ? "a full resync" : nil, owed?.owesGhostCleanup == true ? "a ghost cleanup" : nil]
            .compactMap { $0 }
        let note = fallback.isEmpty && !duties.isEmpty ? "Done what lost events left owed: \(duties.joined(separator: " and "))" : fallback
        if subscribedFresh || !duties.isEmpty {
            await update {
                $0.status = .catchingUp
                $0.note = note
                $0.replayId = nil
            }
            try await catchUp(owing: owed)
        }
        await update {
            $0.status = .live
            $0.note = note
        }
        resetBackoff()
        let applier = LiveEventApplier(
            store: manager.store, sync: sync, shape: shape, idField: target.idFieldName,
            modificationDateField: target.modificationDateFieldName, apiVersion: manager.client.apiVersion)
        let context = SyncContext(manager: manager, onUpdate: nil)
        try await applyBatches(batches, with: applier, context: context)
        throw StreamingError.protocolError("the stream of events ended")
    }

    /// Subscribes to `channel` from after `replayId` (new events only without one); returns the
    /// note to show and whether it subscribed to new events only (a catch-up resync is due). A
    /// replay id outside the server's retention window falls back to new events, and the live
    /// sync owes a full resync (its boundary reset) and a ghost cleanup, recorded in its state
    /// before anything else, so that a failure or a restart does not forget them.
    private func subscribe(_ streaming: StreamingClient, to channel: String, after replayId: Int64?) async throws
        -> (note: String, fresh: Bool)
    {
        do {
            try await streaming.subscribe(channel, from: replayId.map(ReplayFrom.after) ?? .newEvents)
            return ("", replayId == nil)
        } catch StreamingError.invalidReplayId(let id) {
            try await manager.updateLive(syncId, run: run) {
                $0.owesFullResync = true
                $0.owesGhostCleanup = true
                $0.replayId = nil
            }
            try await streaming.subscribe(channel, from: .newEvents)
            return ("Replay id \(id) is outside the server's retention window: full resync", true)
        }
    }

    /// Catches up: the full resync and the ghost cleanup owed (each forgotten only once it
    /// succeeded), else a resync from the boundary.
    private func catchUp(owing owed: LiveSyncInfo?) async throws {
        if owed?.owesFullResync == true {
            try await manager.resetBoundary(syncId)
            try await resync()
            try await manager.updateLive(syncId, run: run) { $0.owesFullResync = false }
        } else {
            try await resync()
        }
        // Deletes no event reached: the records the server no longer has go now.
        if owed?.owesGhostCleanup == true {
            _ = try await manager.cleanResyncGhosts(id: syncId)
            try await manager.updateLive(syncId, run: run) { $0.owesGhostCleanup = false }
        }
    }

    /// Applies each batch of events as it arrives, records the progress and announces the
    /// changes; returns when the stream ends.
    private func applyBatches(
        _ batches: AsyncThrowingStream<[StreamingEvent], any Error>, with applier: LiveEventApplier, context: SyncContext
    ) async throws {
        for try await events in batches {
            // On Linux a request is not cancelled: a stopped run's last long poll may answer late.
            try Task.checkCancellation()
            guard let last = events.last else { continue }
            var outcome = try await applier.apply(events, context: context)
            if outcome.needsResync { try await resync() }
            if outcome.needsGhostCleanup {
                try await manager.updateLive(syncId, run: run) { $0.owesGhostCleanup = true }
                _ = try await manager.cleanResyncGhosts(id: syncId)
                try await manager.updateLive(syncId, run: run) { $0.owesGhostCleanup = false }
            }
            // Recorded even when a stop came meanwhile: these events are in the store, and the
            // next run must start after them.
            try? await manager.recordLiveProgress(syncId, replayId: last.replayId, applied: outcome.applied, skipped: outcome.skippedIds)
            // Records a sync up (of any process) cleaned since their changes were skipped.
            try await manager.rereadSkipped(syncId)
            try Task.checkCancellation()
            outcome.changes.removeAll { $0.recordIds.isEmpty && $0.outcome == .applied }
            await manager.announce(outcome.changes)
        }
    }

    /// Connects one long poll after another, yielding each batch of events; the stream ends
    /// with the first failure (a lost connection, a forgotten client) or when cancelled.
    private static func pump(_ streaming: StreamingClient) -> (AsyncThrowingStream<[StreamingEvent], any Error>, Task<Void, Never>) {
        let (stream, continuation) = AsyncThrowingStream<[StreamingEvent], any Error>.makeStream()
        let task = Task {
            do {
                while !Task.isCancelled {
                    let events = try await streaming.connect()
                    if !events.isEmpty { continuation.yield(events) }
                }
                continuation.finish(throwing: CancellationError())
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return (stream, task)
    }

    /// Resyncs every poll interval, trying the Streaming API again every retry interval.
    private func poll(because error: StreamingError) async throws {
        let until = ContinuousClock.now + options.streamingRetryInterval
        await update {
            $0.status = .polling
            $0.note = "\(error): resyncing every \(options.pollInterval)"
        }
        var backoff = options.initialBackoff
        var polls = 0
        while ContinuousClock.now < until {
            try Task.checkCancellation()
            do {
                try await resync()
                // A resync never removes what the server deleted: every tenth poll, from the
                // first, cleans that up.
                polls += 1
                if polls % 10 == 1 { _ = try await manager.cleanResyncGhosts(id: syncId) }
                backoff = options.initialBackoff
                try await Task.sleep(for: options.pollInterval)
            } catch {
                if Task.isCancelled { throw CancellationError() }
                let message = "\(Self.describe(error)); retrying in \(backoff)"
                await update { $0.note = message }
                try await Task.sleep(for: backoff)
                backoff = min(backoff * 2, options.maximumBackoff)
            }
        }
    }

    /// A resync of the sync, counted; a failed one throws its error.
    private func resync() async throws {
        let state = try await manager.reSync(id: syncId)
        await update { $0.resyncs += 1 }
        if state.hasFailed { throw SyncError.liveResyncFailed(state.error) }
    }

    /// Changes the stored live state (nothing once the sync is stopped: the stop wrote its own).
    private func update(_ change: @Sendable (inout LiveSyncInfo) -> Void) async {
        guard !Task.isCancelled else { return }
        try? await manager.updateLive(syncId, run: run, change)
    }

    private static func describe(_ error: any Error) -> String {
        String(describing: error)
    }
}

extension StreamingError {
    /// The server has no Streaming API, or no change events for this object (on Salesforce,
    /// an object not selected for Change Data Capture has no channel): poll instead.
    var meansNoStreaming: Bool {
        switch self {
        case .unavailable, .subscriptionRefused: true
        default: false
        }
    }
}
