import GRDB
import Locking

/// A few read-only connections of a file store, for reads that run one statement.
///
/// Every read through GRDB's pool first runs `PRAGMA schema_version` (its own read transaction,
/// with two file locks) and checks a reader out of a semaphore-guarded pool: measured, about
/// 45% of a point lookup's time (20 µs → 12 µs without them). A single statement needs neither: SQLite
/// re-prepares a statement when the schema changes, and the statement is its own transaction.
/// So the store keeps up to ``capacity`` plain connections, made on first use; a read that finds
/// them all busy goes through the pool.
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
            do {
                return try DatabaseQueue(path: path, configuration: configuration)
            } catch {
                state.withLock { $0.created -= 1 }
                throw error
            }
        }
    }

    private func checkIn(_ connection: DatabaseQueue) {
        let keep = state.withLock { state in
            if state.isClosed { return false }
            state.idle.append(connection)
            return true
        }
        if !keep { try? connection.close() }
    }

    /// Closes the idle connections; busy ones close when their read ends. Later reads go
    /// through the pool (which then reports the store closed).
    func close() throws {
        let idle = state.withLock { state in
            state.isClosed = true
            defer { state.idle.removeAll() }
            return state.idle
        }
        for connection in idle { try connection.close() }
    }
}
