import NIOConcurrencyHelpers

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// A LocalForce's Streaming API state: its clients, the signal that wakes their long polls,
/// the poller that notices other processes' events, and retention.
final class StreamingHub: Sendable {
    let options: StreamingOptions
    let clients = StreamingClients()
    let signal = EventSignal()
    private let database: any SQLDatabase
    /// Long polls waiting, and whether the poller runs (one lock: a poller never stops while one waits).
    private let polling = NIOLockedValueBox<(waiting: Int, running: Bool)>((0, false))
    /// When retention last ran (ms).
    private let lastPurge = NIOLockedValueBox<Int64>(0)
    /// The newest replay id the poller has seen, kept across its runs: a poller that started
    /// from a fresh read could miss an event committed between a long poll's read and its own.
    private let polledLatest = NIOLockedValueBox<Int64>(0)
    /// Set when the server stops: long polls answer at once, and new ones do not wait.
    private let closing = NIOLockedValueBox(false)
    /// Long polls waiting now, in all and per user.
    private let longPolls = NIOLockedValueBox<(total: Int, perUser: [String: Int])>((0, [:]))
    /// Long polls allowed to wait at once (``StreamingOptions/maximumLongPolls``, and half the
    /// open-file limit).
    let longPollCapacity: Int

    /// How often retention runs at most.
    static let purgeInterval: Int64 = 5_000

    init(options: StreamingOptions, database: any SQLDatabase) {
        self.options = options
        self.database = database
        longPollCapacity = min(options.maximumLongPolls, Self.openFileLimit() / 2)
    }

    /// The process's soft limit of open files (a large number when it cannot be read).
    private static func openFileLimit() -> Int {
        let limit = sysconf(Int32(_SC_OPEN_MAX))
        return limit > 0 ? limit : .max
    }

    /// Counts a long poll of `user` as waiting, unless the bounds are reached (then false, and
    /// nothing counted): ``longPollCapacity`` in all, a quarter of it per user.
    func beginLongPoll(user: String) -> Bool {
        longPolls.withLockedValue { polls in
            guard polls.total < longPollCapacity, polls.perUser[user, default: 0] < max(1, longPollCapacity / 4) else { return false }
            polls.total += 1
            polls.perUser[user, default: 0] += 1
            return true
        }
    }

    /// Long polls waiting now.
    var waitingLongPolls: Int { longPolls.withLockedValue { $0.total } }

    /// Ends a long poll ``beginLongPoll(user:)`` counted.
    func endLongPoll(user: String) {
        longPolls.withLockedValue { polls in
            polls.total -= 1
            let left = polls.perUser[user, default: 1] - 1
            polls.perUser[user] = left > 0 ? left : nil
        }
    }

    /// Whether the server is stopping (long polls answer at once).
    var isClosing: Bool { closing.withLockedValue { $0 } }

    /// Ends every pending long poll (each answers with what it has) and keeps new ones from
    /// waiting: a stopping server does not wait out their timeouts.
    func close() {
        closing.withLockedValue { $0 = true }
        signal.wake()
    }

    /// After a write request committed: wakes the long polls, and applies retention now and then.
    func afterWrite(now: Int64) {
        signal.wake()
        let due = lastPurge.withLockedValue { last -> Bool in
            guard now - last >= Self.purgeInterval else { return false }
            last = now
            return true
        }
        guard due else { return }
        Task { _ = try? await applyRetention(now: now) }
    }

    /// Removes the events retention no longer keeps; returns how many went.
    @discardableResult
    func applyRetention(now: Int64) async throws -> Int {
        let (age, count, bytes) = (options.retentionAge.wholeMilliseconds, options.retentionCount, options.retentionBytes)
        return try await database.write { db in
            try EventLog.purge(now: now, maximumAge: age, maximumCount: count, maximumBytes: bytes, on: db)
        }
    }

    /// Runs `body` (a long poll's wait) with the poller looking for other processes' events
    /// when the database is shared.
    func waiting<T>(_ body: () async throws -> T) async rethrows -> T {
        guard database.isShared else { return try await body() }
        let start = polling.withLockedValue { state -> Bool in
            state.waiting += 1
            guard !state.running else { return false }
            state.running = true
            return true
        }
        if start { startPoller() }
        defer { polling.withLockedValue { $0.waiting -= 1 } }
        return try await body()
    }

    private func startPoller() {
        let (database, interval) = (database, options.pollInterval)
        Task { [weak self] in
            while let self {
                try? await Task.sleep(for: interval)
                let stop = self.polling.withLockedValue { state -> Bool in
                    guard state.waiting == 0 else { return false }
                    state.running = false
                    return true
                }
                if stop { return }
                if let now = try? await database.read({ db in try EventLog.bounds(on: db).upperBound }) {
                    let newer = self.polledLatest.withLockedValue { latest -> Bool in
                        defer { latest = max(latest, now) }
                        return now > latest
                    }
                    if newer { self.signal.wake() }
                }
            }
        }
    }
}
