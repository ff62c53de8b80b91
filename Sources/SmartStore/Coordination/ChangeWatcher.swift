import Foundation
import GRDB
import Locking

/// Wakes a store's live queries when another process commits to its file.
///
/// GRDB's observations see the commits of the store's own writer only. While at least one live
/// query runs (``subscribe()``), the watcher reads `PRAGMA data_version` on the writer's
/// connection when woken: it changes when any other connection, in any process, commits. Then it
/// tells every observation to fetch again (`Database.notifyChanges(in:)`), which drops results
/// equal to the last one. With no live query it does nothing at all.
///
/// What wakes it differs by platform. On Apple platforms every store posts a Darwin
/// notification after each commit (``DarwinCommitSignal``: an app and its extensions say "I
/// committed" without polling), and the watcher checks when one arrives. Elsewhere it polls,
/// every ``interval``, on a thread of its own rather than in Swift's cooperative pool, so that a
/// pool busy with other work does not delay it.
final class ChangeWatcher: Sendable {
    /// How often the version is read while observed where it polls, in seconds.
    static let interval: TimeInterval = 0.25
    private let writer: any DatabaseWriter
    private let signal: (any CommitSignal)?
    private struct State: Sendable {
        var subscribers = 0
        /// Counts the watches started: a watch set up after its own end is stopped at once.
        var generation = 0
        /// What stops the running watch (nil until it is set up), while one runs.
        var stop: (@Sendable () -> Void)?
        var watching = false
        /// The data version last read; nil before the first reading of a watch.
        var seen: Int?
        /// Other processes' commits seen, and when the last one was (tests read them).
        var detections = 0
        var lastDetection: ContinuousClock.Instant?
    }
    private let state = Locked(State())
    /// Where checks run: one at a time, never on the thread that subscribes (a check waits for
    /// the writer, which a long transaction may hold).
    private let queue = DispatchQueue(label: "SmartStore.ChangeWatcher")

    /// A watcher of the writer's file, woken by `signal` where the platform has one.
    init(writer: any DatabaseWriter, signal: (any CommitSignal)?) {
        self.writer = writer
        self.signal = signal
    }

    /// Starts watching, unless a live query already did; balance with ``unsubscribe()``.
    func subscribe() {
        let generation = state.withLock { state -> Int? in
            state.subscribers += 1
            guard !state.watching else { return nil }
            state.watching = true
            state.seen = nil
            state.generation += 1
            return state.generation
        }
        guard let generation else { return }
        // Listening first, then the baseline reading: a commit between the two wakes a check.
        let stop: @Sendable () -> Void
        let wake: @Sendable () -> Void = { [weak self] in
            guard let self else { return }
            self.queue.async { self.check() }
        }
        if let signal, let cancel = signal.observe(wake) {
            stop = cancel
        } else {
            stop = poll()
        }
        let current = state.withLock { state -> Bool in
            guard state.watching, state.generation == generation else { return false }
            state.stop = stop
            return true
        }
        guard current else { return stop() } // ended, and maybe begun again, meanwhile
        // The baseline: a commit between the query's first fetch and it would go unseen, so the
        // observations fetch once more after it.
        queue.async { [weak self] in self?.check() }
    }

    /// Polls on a thread of its own until the returned closure is called.
    private func poll() -> @Sendable () -> Void {
        let stopped = Locked(false)
        let thread = Thread { [weak self] in
            while !stopped.current, let self {
                self.queue.sync { self.check() }
                Thread.sleep(forTimeInterval: Self.interval)
            }
        }
        thread.name = "SmartStore.ChangeWatcher"
        thread.start()
        return { stopped.withLock { $0 = true } }
    }

    /// Reads the data version; when it changed, the observations fetch again.
    private func check() {
        guard let version = try? writer.writeWithoutTransaction({ db in try Int.fetchOne(db, sql: "PRAGMA data_version") })
        else { return }
        let changed = state.withLock { state -> Bool in
            guard state.watching, version != state.seen else { return false }
            if state.seen != nil {
                state.detections += 1
                state.lastDetection = .now
            }
            state.seen = version
            return true
        }
        if changed { try? writer.write { db in try db.notifyChanges(in: .fullDatabase) } }
    }

    /// Whether it watches now (a live query runs).
    var isWatching: Bool { state.withLock { $0.watching } }

    /// Whether its baseline reading is taken (commits from then on count as detections).
    var hasBaseline: Bool { state.withLock { $0.seen != nil } }

    /// How many commits of other connections it has seen, and when the last one was.
    var detections: (count: Int, last: ContinuousClock.Instant?) { state.withLock { ($0.detections, $0.lastDetection) } }

    /// Stops watching once the last live query has ended.
    func unsubscribe() {
        let stop = state.withLock { state -> (@Sendable () -> Void)? in
            state.subscribers = max(0, state.subscribers - 1)
            guard state.subscribers == 0, state.watching else { return nil }
            state.watching = false
            defer { state.stop = nil }
            return state.stop
        }
        stop?()
    }
}
