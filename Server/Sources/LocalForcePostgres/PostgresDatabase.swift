import Foundation
public import LocalForce
import Logging
import NIOCore
import NIOPosix
import PostgresNIO

/// LocalForce's PostgreSQL backend (postgres-nio): `msync serve --database postgres://user:pass@host:5432/db`.
///
/// Record code is synchronous (one transaction, many statements), so each transaction runs on
/// a thread of its own that waits for postgres-nio's futures — never on an event loop or on
/// Swift's cooperative pool. Writes are `READ COMMITTED` transactions that share no row for
/// ids or stamps (sequences, each process's clock: ``SQLDialect/concurrentWriters``), so two
/// of them may deadlock on the records they both write: PostgreSQL aborts one, which runs
/// again (up to ``conflictRetries`` times). Reads are `REPEATABLE READ READ ONLY`, one
/// consistent snapshot.
public final class PostgresDatabase: SQLDatabase {
    private let pool: ConnectionPool
    private let logger: Logger

    /// Connects to `url` (`postgres://user:password@host:port/database`, optionally
    /// `?schema=name` to keep LocalForce's tables in their own schema, created if missing) with
    /// up to `connections` connections.
    public init(url: String, connections: Int = 8) async throws {
        guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme ?? ""),
            let host = components.host, let user = components.user
        else {
            throw APIError(500, "INVALID_DATABASE_URL", "Expected postgres://user:password@host:port/database, got \(url)")
        }
        var logger = Logger(label: "LocalForce.Postgres")
        logger.logLevel = .warning
        self.logger = logger
        let configuration = PostgresConnection.Configuration(
            host: host, port: components.port ?? 5432, username: user, password: components.password,
            database: components.path.split(separator: "/").first.map(String.init), tls: .disable)
        let schema = components.queryItems?.first { $0.name == "schema" }?.value
        if let schema,
            schema.isEmpty || !schema.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" })
        {
            throw APIError(500, "INVALID_DATABASE_URL", "schema must be lower-case letters, digits and _: \(schema)")
        }
        pool = ConnectionPool(configuration: configuration, size: max(1, connections), schema: schema, logger: logger)
        // Fail early on a wrong address or password, saying where and why (postgres-nio's own
        // description hides both).
        do {
            let probe = try await pool.acquire()
            await pool.release(probe)
        } catch {
            let place = "\(host):\(components.port ?? 5432)" + (configuration.database.map { "/\($0)" } ?? "")
            throw DatabaseOpenError("Cannot connect to PostgreSQL at \(place) as \(user): \(Self.reason(error))")
        }
    }

    /// What went wrong, from the server's message or the connection's underlying error.
    private static func reason(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] { return message }
        if let underlying = error.underlying { return "\(underlying)" }
        return "\(error.code)"
    }

    /// Always `true`: other LocalForce processes may serve the same database, so query cursors
    /// are kept in it.
    public var isShared: Bool { true }

    /// Closes every connection.
    public func close() async {
        await pool.close()
    }

    /// Runs `body` in a transaction at the server's default isolation (`READ COMMITTED`) on a
    /// connection of the pool, committed when `body` returns and rolled back when it throws.
    public func write<T: Sendable>(_ body: @Sendable @escaping (any SQLConnection) throws -> T) async throws -> T {
        try await transaction(begin: "BEGIN", body)
    }

    /// Runs `body` in a `REPEATABLE READ READ ONLY` transaction: one consistent snapshot.
    public func read<T: Sendable>(_ body: @Sendable @escaping (any SQLConnection) throws -> T) async throws -> T {
        try await transaction(begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", body)
    }

    /// How many times a transaction PostgreSQL aborted for a deadlock or a serialization
    /// failure runs again before its error is returned.
    public static let conflictRetries = 4

    private func transaction<T: Sendable>(begin: String, _ body: @Sendable @escaping (any SQLConnection) throws -> T) async throws -> T {
        var attempt = 0
        while true {
            let outcome = try await attemptTransaction(begin: begin, body)
            switch outcome {
            case .done(let value): return value
            case .conflict(let error):
                attempt += 1
                guard attempt <= Self.conflictRetries else { throw error }
                // Apart, so the transactions that deadlocked do not meet again at once.
                try await Task.sleep(for: .milliseconds(Int.random(in: 1...10) * attempt))
            }
        }
    }

    private enum Outcome<T: Sendable>: Sendable {
        case done(T)
        /// Rolled back for a deadlock or a serialization failure (whatever `body` made of it).
        case conflict(any Error)
    }

    private func attemptTransaction<T: Sendable>(begin: String, _ body: @Sendable @escaping (any SQLConnection) throws -> T) async throws
        -> Outcome<T>
    {
        let connection = try await pool.acquire()
        let logger = self.logger
        do {
            let result: Outcome<T> = try await withCheckedThrowingContinuation { continuation in
                Thread.detachNewThread {
                    let sql = PostgresSQLConnection(connection: connection, logger: logger, conflict: ConflictFlag())
                    do {
                        _ = try sql.execute(begin, [])
                        do {
                            let value = try body(sql)
                            // A conflict the body caught still aborted the transaction: COMMIT would roll it back.
                            if sql.conflict.raised {
                                _ = try? sql.execute("ROLLBACK", [])
                                continuation.resume(returning: .conflict(StatementError(message: "PostgreSQL: deadlock detected")))
                                return
                            }
                            _ = try sql.execute("COMMIT", [])
                            continuation.resume(returning: .done(value))
                        } catch {
                            _ = try? sql.execute("ROLLBACK", [])
                            if sql.conflict.raised {
                                continuation.resume(returning: .conflict(error))
                            } else {
                                continuation.resume(throwing: error)
                            }
                        }
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            }
            await pool.release(connection)
            return result
        } catch {
            await pool.release(connection)
            throw error
        }
    }
}

/// Whether a statement of the transaction failed with a deadlock (`40P01`) or a serialization
/// failure (`40001`). Used by the one thread that runs the transaction.
final class ConflictFlag: @unchecked Sendable {
    var raised = false
}

/// A connection seen through ``SQLConnection``, blocking on postgres-nio's futures.
struct PostgresSQLConnection: SQLConnection {
    let connection: PostgresConnection
    let logger: Logger
    let conflict: ConflictFlag
    var dialect: SQLDialect { .postgres }

    private func run(_ sql: String, _ arguments: [SQLValue]) throws -> PostgresQueryResult {
        var binds = PostgresBindings()
        for argument in arguments {
            switch argument {
            case .null: binds.appendNull()
            case .integer(let value): binds.append(value)
            case .real(let value): binds.append(value)
            case .text(let value): binds.append(value)
            }
        }
        do {
            return try connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger).wait()
        } catch let error as PSQLError {
            if let state = error.serverInfo?[.sqlState], state == "40P01" || state == "40001" { conflict.raised = true }
            throw StatementError(message: "PostgreSQL: " + (error.serverInfo?[.message] ?? "\(error.code)"))
        }
    }

    func execute(_ sql: String, _ arguments: [SQLValue]) throws -> Int {
        try run(sql, arguments).metadata.rows ?? 0
    }

    func rows(_ sql: String, _ arguments: [SQLValue]) throws -> [[SQLValue]] {
        try run(sql, arguments).rows.map { row in row.map(SQLValue.init(cell:)) }
    }
}

extension SQLValue {
    init(cell: PostgresCell) {
        guard var bytes = cell.bytes else {
            self = .null
            return
        }
        switch cell.dataType {
        case .int8, .int4, .int2:
            self = (try? cell.decode(Int64.self)).map(SQLValue.integer) ?? .null
        case .float8, .float4, .numeric:
            self = (try? cell.decode(Double.self)).map(SQLValue.real) ?? .null
        case .bool:
            self = .integer((try? cell.decode(Bool.self)) == true ? 1 : 0)
        default:
            // Text in every collation arrives as UTF-8, in the text and the binary format alike.
            self = .text(bytes.readString(length: bytes.readableBytes) ?? "")
        }
    }
}

/// A fixed set of connections handed out one transaction at a time.
actor ConnectionPool {
    private let configuration: PostgresConnection.Configuration
    private let size: Int
    private let schema: String?
    private let logger: Logger
    private var idle: [PostgresConnection] = []
    private var opened = 0
    private var waiters: [CheckedContinuation<PostgresConnection, any Error>] = []
    /// After ``close()``: nothing is opened any more, and connections given back are closed
    /// (work still running then, such as a late retention pass, fails instead of opening one).
    private var closed = false

    init(configuration: PostgresConnection.Configuration, size: Int, schema: String?, logger: Logger) {
        self.configuration = configuration
        self.size = size
        self.schema = schema
        self.logger = logger
    }

    func acquire() async throws -> PostgresConnection {
        guard !closed else { throw DatabaseOpenError("The PostgreSQL database was closed") }
        if let connection = idle.popLast() { return connection }
        if opened < size {
            opened += 1
            do {
                let connection = try await PostgresConnection.connect(
                    on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration,
                    id: opened, logger: logger
                ).get()
                if let schema {
                    // The name was checked to be [a-z0-9_]+.
                    _ = try await connection.query(PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \(schema)"), logger: logger).get()
                    _ = try await connection.query(PostgresQuery(unsafeSQL: "SET search_path TO \(schema)"), logger: logger).get()
                }
                if closed {
                    // Closed while this one was opening.
                    try? await connection.close()
                    throw DatabaseOpenError("The PostgreSQL database was closed")
                }
                return connection
            } catch {
                opened -= 1
                throw error
            }
        }
        return try await withCheckedThrowingContinuation { waiters.append($0) }
    }

    func release(_ connection: PostgresConnection) {
        if connection.isClosed {
            opened -= 1
            return
        }
        if closed {
            opened -= 1
            Task { try? await connection.close() }
            return
        }
        if !waiters.isEmpty {
            waiters.removeFirst().resume(returning: connection)
        } else {
            idle.append(connection)
        }
    }

    func close() async {
        closed = true
        for waiter in waiters { waiter.resume(throwing: DatabaseOpenError("The PostgreSQL database was closed")) }
        waiters.removeAll()
        let connections = idle
        idle.removeAll()
        for connection in connections { try? await connection.close() }
    }
}

/// Opens a LocalForce database by location.
public enum DatabaseLocation {
    /// `postgres://…` (or `postgresql://…`) opens ``PostgresDatabase``; anything else is a
    /// SQLite file path or `:memory:`.
    public static func open(_ location: String, connections: Int = 8) async throws -> any SQLDatabase {
        if location.hasPrefix("postgres://") || location.hasPrefix("postgresql://") {
            return try await PostgresDatabase(url: location, connections: connections)
        }
        return try SQLiteDatabase(path: location)
    }
}
