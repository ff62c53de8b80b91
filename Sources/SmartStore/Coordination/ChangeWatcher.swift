import GRDB
import Locking

/// Wakes a store's live queries when another process commits to its file.
///
/// GRDB's observations see the commits of the store's own writer only. While at least one live
/// query runs (``subscribe()``), the watcher reads `PRAGMA data_version` on the writer's
/// connection every ``interval``: it changes when any other connection, in any process, commits.
/// Then it tells every observation to fetch again (`Database.notifyChanges(in:)`), which drops
/// results equal to the last one. With no live query there is no polling at all.
final class ChangeWatcher: Sendable {
    /// How often the version is read while observed.
    static let interval: Duration = .milliseconds(250)
    private let writer: any DatabaseWriter
    private let state = Locked<(subscribers: Int, task: Task<Void, Never>?)>((0, nil))

    init(writer: any DatabaseWriter) {
        self.writer = writer
    }

    /// Starts polling, unless a live query already did; balance with ``unsubscribe()``.
    func subscribe() {
        state.withLock { state in
            state.subscribers += 1
            guard state.task == nil else { return }
            let writer = self.writer
            state.task = Task.detached {
                var seen: Int?
                while !Task.isCancelled {
                    let version = try? await writer.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA data_version") }
                    // The first reading is a baseline: a commit between the query's first fetch
                    // and it would go unseen, so the observations fetch once more after it.
                    if let version, version != seen {
                        try? await writer.write { db in try db.notifyChanges(in: .fullDatabase) }
                    }
                    seen = version ?? seen
                    try? await Task.sleep(for: Self.interval)
                }
            }
        }
    }

    /// Whether it polls now (a live query runs).
    var isPolling: Bool { state.withLock { $0.task != nil } }

    /// Stops polling once the last live query has ended.
    func unsubscribe() {
        state.withLock { state in
            state.subscribers = max(0, state.subscribers - 1)
            if state.subscribers == 0 {
                state.task?.cancel()
                state.task = nil
            }
        }
    }
}
