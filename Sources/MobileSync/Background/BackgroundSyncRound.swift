import Foundation
import Locking

/// One round of named syncs in a window of time the system grants and may take back: an iOS
/// background task (`BackgroundSyncScheduler` on iOS, tvOS and visionOS), or any other.
///
/// ``run()`` restarts the manager if it was stopped (by an earlier round's expiry, or when the
/// app went to the background: a stop still under way ends first), then resyncs the syncs,
/// sync ups before sync downs (local changes reach the server before its state comes
/// back). ``expire()``, from the system's expiration handler, stops the manager: the syncs under
/// way end STOPPED at their next page or batch, resumable by the next round, and ``run()``
/// returns its report without starting the rest.
///
/// <!-- snippet: Snippets/MobileSyncReference.swift#backgroundRound -->
/// ```swift
/// let round = try await BackgroundSyncRound(manager: manager, names: ["syncUpAccounts", "syncDownAccounts"])
/// let report = await round.run() // from another task, when the time runs out: round.expire()
/// print(report.succeeded, report.syncs.map(\.status))
/// ```
public final class BackgroundSyncRound: Sendable {
    /// The manager whose syncs run.
    public let manager: SyncManager
    /// The syncs, in the order they run: sync ups, then sync downs.
    public let names: [String]
    private let expired = Locked(false)

    /// A round of the syncs named, sync ups first.
    ///
    /// - Throws: ``SyncError/notFound(_:)`` for a name no sync has.
    public init(manager: SyncManager, names: [String]) async throws {
        var ups: [String] = []
        var downs: [String] = []
        for name in names {
            guard let sync = try await manager.syncStatus(named: name) else { throw SyncError.notFound(name) }
            if sync.kind == .syncUp { ups.append(name) } else { downs.append(name) }
        }
        self.manager = manager
        self.names = ups + downs
    }

    /// Runs the syncs, each a resync, and reports what ran; returns early after ``expire()``.
    public func run() async -> BackgroundSyncReport {
        let started = Date()
        // A stop asked before (the app went to the background) ends first; then the round
        // restarts the manager it left stopped.
        while manager.isStopping, !isExpired { try? await Task.sleep(for: .milliseconds(50)) }
        if manager.isStopped, !isExpired { _ = try? await manager.restart(restartStoppedSyncs: false) }
        var entries: [BackgroundSyncReport.Entry] = []
        for name in names {
            guard !isExpired else {
                entries.append(.init(name: name, status: "NOT_RUN", error: "the background time ran out before it"))
                continue
            }
            do {
                let result = try await manager.reSync(named: name)
                entries.append(.init(name: name, status: result.status.rawValue, error: result.error))
            } catch {
                let stopped = isExpired
                entries.append(.init(name: name, status: stopped ? "NOT_RUN" : SyncState.Status.failed.rawValue, error: "\(error)"))
            }
        }
        return BackgroundSyncReport(started: started, ended: Date(), expired: isExpired, syncs: entries)
    }

    /// The time is up: stops the manager (the syncs under way end STOPPED) and the round.
    /// Returns at once; ``run()`` returns its report once the syncs under way have stopped.
    public func expire() {
        expired.withLock { $0 = true }
        manager.stop()
    }

    private var isExpired: Bool { expired.withLock { $0 } }
}
