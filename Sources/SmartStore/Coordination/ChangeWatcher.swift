import Foundation
import GRDB
import Locking

/// Wakes a store's live queries when another process commits to its file.
///
/// GRDB's observations see the commits of the store's own writer only. While at least one live
/// query runs (``subscribe()``), the watcher reads `PRAGMA data_version` on the writer's
/// connection every ``interval``: it changes when any other connection, in any process, commits.
/// Then it tells every observation to fetch again (`Database.notifyChanges(in:)`), which drops
/// results equal to the last one. With no live query there is no polling at all.
///
/// It polls on a thread of its own, not in Swift's cooperative pool, so that a pool busy with
/// other work does not delay it.
final class ChangeWatcher: Sendable {
    /// How often the version is read while observed, in seconds.
    static let interval: TimeInterval = 0.25
    private let writer: any DatabaseWriter
    private struct State: Sendable {
        var subscribers = 0
        /// The running poll's stop flag, if one runs.
        var stop: Locked<Bool>?
        /// Other processes' commits seen, and when the last one was (tests read them).
        var detections = 0
        var lastDetection: ContinuousClock.Instant?
    }
    private let state = Locked(State())

    init(writer: any DatabaseWriter) {
        self.writer = writer
    }

    /// Starts polling, unless a live query already did; balance with ``unsubscribe()``.
    func subscribe() {
        state.withLock { state in
            state.subscribers += 1
            guard state.stop == nil else { return }
            let stop = Locked(false)
            state.stop = stop
            let (writer, shared) = (self.writer, self.state)
            let thread = Thread {
                var seen: Int?
                while !stop.current {
                    let version = try? writer.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA data_version") }
                    // The first reading is a baseline: a commit between the query's first fetch
                    // and it would go unseen, so the observations fetch once more after it.
                    if let version, version != seen {
                        if seen != nil {
                            shared.withLock {
                                $0.detections += 1
                                $0.lastDetection = .now
                            }
                        }
                        try? writer.write { db in try db.notifyChanges(in: .fullDatabase) }
                    }
                    seen = version ?? seen
                    Thread.sleep(forTimeInterval: Self.interval)
                }
            }
            thread.name = "SmartStore.ChangeWatcher"
            thread.start()
        }
    }

    /// Whether it polls now (a live query runs).
    var isPolling: Bool { state.withLock { $0.stop != nil } }

    /// How many commits of other connections it has seen, and when the last one was.
    var detections: (count: Int, last: ContinuousClock.Instant?) { state.withLock { ($0.detections, $0.lastDetection) } }

    /// Stops polling once the last live query has ended.
    func unsubscribe() {
        state.withLock { state in
            state.subscribers = max(0, state.subscribers - 1)
            if state.subscribers == 0 {
                state.stop?.withLock { $0 = true }
                state.stop = nil
            }
        }
    }
}
