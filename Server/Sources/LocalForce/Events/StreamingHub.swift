import NIOConcurrencyHelpers

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

    /// How often retention runs at most.
    static let purgeInterval: Int64 = 5_000

    init(options: StreamingOptions, database: any SQLDatabase) {
        self.options = options
        self.database = database
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
        let (age, count) = (options.retentionAge.wholeMilliseconds, options.retentionCount)
        return try await database.write { db in try EventLog.purge(now: now, maximumAge: age, maximumCount: count, on: db) }
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
