import GRDB
import Locking

/// A few read-only connections of a file store, for reads that run one statement.
///
/// Why a second pool beside GRDB's `DatabasePool`: every read through that pool, its
/// `unsafeRead` included (GRDB 7), first runs `PRAGMA schema_version` (its own read transaction,
/// with two file locks) to clear its schema cache, and checks a reader out of a
/// semaphore-guarded pool; GRDB has no read that skips them. Measured, they are about 45% of a
/// point lookup's time (20 µs → 12 µs without them). A single statement needs neither: SQLite
/// re-prepares a statement when the schema changes, and the statement is its own transaction.
/// So the store keeps up to ``capacity`` plain connections, made on first use, for its
/// one-statement reads; a read that finds them all busy (or cannot open one), and every read
/// of several statements, goes through GRDB's pool.
final class ReadConnections: Sendable {
    static let capacity = 2

    private struct State {
        var idle: [DatabaseQueue] = []
        var created = 0
        var isClosed = false
    }

    private let path: String
    private let configuration: Configuration
    private let state = Locked(State())

    init(path: String, configuration: Configuration) {
        var configuration = configuration
        configuration.readonly = true
        self.path = path
        self.configuration = configuration
    }

    /// Runs `body` on an idle connection; `nil` when none is free (nor may be made).
    func withConnection<T>(_ body: (Database) throws -> T) throws -> T? {
        guard let connection = try checkOut() else { return nil }
        defer { checkIn(connection) }
        return try connection.unsafeRead(body)
    }

    private func checkOut() throws -> DatabaseQueue? {
        enum Next {
            case use(DatabaseQueue)
            case make, none
        }
        let next: Next = state.withLock { state in
            if state.isClosed { return .none }
            if let connection = state.idle.popLast() { return .use(connection) }
            guard state.created < Self.capacity else { return .none }
            state.created += 1
            return .make
        }
        switch next {
        case .use(let connection): return connection
        case .none: return nil
        case .make:
            // A connection that cannot be opened (no file descriptors left…) leaves the read to
            // the pool, which reports the problem if it has it too.
            guard let connection = try? DatabaseQueue(path: path, configuration: configuration) else {
                state.withLock { $0.created -= 1 }
                return nil
            }
            // Closed while it opened: not used, so that nothing reads after close().
            let closed = state.withLock { state in
                if state.isClosed { state.created -= 1 }
                return state.isClosed
            }
            if closed {
                try? connection.close()
                return nil
            }
            return connection
        }
    }

    private func checkIn(_ connection: DatabaseQueue) {
        let keep = state.withLock { state in
            if state.isClosed {
                state.created -= 1
                return false
            }
            state.idle.append(connection)
            return true
        }
        if !keep { try? connection.close() }
    }

    /// Closes the connections, so that later reads go through the pool (which then reports the
    /// store closed).
    ///
    /// - Throws: ``SmartStoreError/database(_:)`` when a read is running on one of them, as the
    ///   pool does; nothing is closed then.
    func close() throws {
        let idle: [DatabaseQueue] = try state.withLock { state in
            guard state.created == state.idle.count else {
                throw SmartStoreError.database("The store cannot close while a query is running")
            }
            state.isClosed = true
            state.created = 0
            defer { state.idle.removeAll() }
            return state.idle
        }
        for connection in idle { try connection.close() }
    }

    /// Closes whatever is idle and refuses new reads: for `deinit`, where nothing can be running.
    func closeIdle() {
        let idle = state.withLock { state in
            state.isClosed = true
            state.created -= state.idle.count
            defer { state.idle.removeAll() }
            return state.idle
        }
        for connection in idle { try? connection.close() }
    }
}
