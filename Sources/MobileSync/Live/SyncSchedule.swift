public import Foundation

/// Named syncs run periodically by a ``SyncManager`` (see ``SyncManager/schedule(_:every:maximumBackoff:)``).
public struct SyncSchedule: Sendable, Equatable, Identifiable {
    /// Identifies the schedule, to cancel it.
    public let id: UUID
    /// The syncs, run in this order within their kind: every sync up first, then every sync
    /// down, so that local changes reach the server before its state comes back.
    public let names: [String]
    /// The time between runs while they succeed.
    public let interval: Duration
    /// The longest wait after failures (the wait doubles from ``interval`` with each failed run).
    public let maximumBackoff: Duration
    /// Runs that failed in a row (a sync that threw or ended FAILED); 0 after a success.
    public internal(set) var consecutiveFailures: Int = 0
    /// When the last run ended, if any.
    public internal(set) var lastRun: Date?
    /// The last run's failure, empty after a success.
    public internal(set) var lastError: String = ""

    /// The wait before the next run: ``interval``, doubled per failure in a row, at most ``maximumBackoff``.
    public var nextDelay: Duration {
        var delay = interval
        for _ in 0..<min(consecutiveFailures, 30) where delay < maximumBackoff { delay = delay * 2 }
        return min(delay, max(interval, maximumBackoff))
    }
}

extension SyncManager {
    /// Runs the named syncs every `interval`: sync ups before sync downs, each a resync; after
    /// a failed run the wait doubles, up to `maximumBackoff`, and is back to `interval` after a
    /// success. Runs are skipped while the manager is stopped and resume after its restart.
    /// Live syncs need no schedule; this is for the rest (sync ups, non-SOQL sync downs).
    ///
    /// - Returns: the schedule (its ``SyncSchedule/id`` cancels it).
    /// - Throws: ``SyncError/notFound(_:)`` for a name no sync has.
    @discardableResult
    public func schedule(_ names: [String], every interval: Duration, maximumBackoff: Duration = .seconds(900)) throws -> SyncSchedule {
        var ups: [String] = []
        var downs: [String] = []
        for name in names {
            guard let sync = try syncStatus(named: name) else { throw SyncError.notFound(name) }
            if sync.kind == .syncUp { ups.append(name) } else { downs.append(name) }
        }
        let info = SyncSchedule(
            id: UUID(), names: ups + downs, interval: max(.milliseconds(10), interval), maximumBackoff: maximumBackoff)
        schedules[info.id] = (Task { await self.runSchedule(info.id) }, info)
        return info
    }

    /// The schedules running, with their last outcome.
    public var syncSchedules: [SyncSchedule] { schedules.values.map(\.info).sorted { $0.names.joined() < $1.names.joined() } }

    /// Stops a schedule (a run under way finishes).
    public func cancelSchedule(_ id: UUID) {
        schedules.removeValue(forKey: id)?.task.cancel()
    }

    private func runSchedule(_ id: UUID) async {
        while !Task.isCancelled, let info = schedules[id]?.info {
            try? await Task.sleep(for: info.nextDelay)
            guard !Task.isCancelled, schedules[id] != nil else { return }
            // Paused while the manager is stopped: look again after the next interval.
            guard state == .acceptingSyncs else { continue }
            // Every sync runs even when one before it failed (a sync down still brings the
            // server's changes when a sync up was refused); the run counts as failed.
            var failures: [String] = []
            for name in info.names where state == .acceptingSyncs {
                do {
                    let result = try await reSync(named: name)
                    if result.hasFailed { failures.append("\(name): \(result.error)") }
                } catch {
                    if Task.isCancelled { return }
                    failures.append("\(name): \(error)")
                }
            }
            let failure = failures.joined(separator: "; ")
            guard var entry = schedules[id] else { return }
            entry.info.lastRun = Date()
            entry.info.lastError = failure
            entry.info.consecutiveFailures = failure.isEmpty ? 0 : entry.info.consecutiveFailures + 1
            schedules[id] = entry
        }
    }
}
