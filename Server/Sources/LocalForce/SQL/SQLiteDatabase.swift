import Foundation
import GRDB
import NIOConcurrencyHelpers

/// LocalForce's embedded backend: SQLite through GRDB (a WAL pool for files, a queue in memory).
public final class SQLiteDatabase: SQLDatabase {
    private let writer: any DatabaseWriter
    /// The statement cache bound of this database's connections.
    private let statements = StatementCacheBudget()
    /// A file can be opened by other processes; `:memory:` cannot.
    public let isShared: Bool

    /// Opens `path`, or an in-memory database for `:memory:`.
    ///
    /// - Throws: ``DatabaseOpenError`` naming the path when SQLite cannot open it.
    public init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        isShared = path != ":memory:"
        guard !path.isEmpty else { throw DatabaseOpenError("A database path must not be empty (use :memory: for an in-memory database)") }
        do {
            if path == ":memory:" {
                writer = try DatabaseQueue(configuration: configuration)
            } else {
                writer = try DatabasePool(path: path, configuration: configuration)
            }
        } catch let error as DatabaseError {
            throw DatabaseOpenError("Cannot open the SQLite database at \(path): \(error.message ?? error.description)")
        } catch {
            throw DatabaseOpenError("Cannot open the SQLite database at \(path): \(error)")
        }
    }

    /// Runs `body` in a write transaction (rolled back if it throws); writes are serialized.
    public func write<T: Sendable>(_ body: @Sendable @escaping (any SQLConnection) throws -> T) async throws -> T {
        let statements = self.statements
        return try await writer.write { db in try body(GRDBConnection(db: db, statements: statements)) }
    }

    /// Runs `body` with a consistent read view (for a file, a WAL snapshot that does not wait for writes).
    public func read<T: Sendable>(_ body: @Sendable @escaping (any SQLConnection) throws -> T) async throws -> T {
        let statements = self.statements
        return try await writer.read { db in try body(GRDBConnection(db: db, statements: statements)) }
    }
}

/// A GRDB connection seen through ``SQLConnection``.
struct GRDBConnection: SQLConnection {
    let db: Database
    var statements = StatementCacheBudget()
    var dialect: SQLDialect { .sqlite }

    func execute(_ sql: String, _ arguments: [SQLValue]) throws -> Int {
        try refusals {
            let statement = try statement(sql)
            statement.setUncheckedArguments(StatementArguments(databaseValues: arguments.map(\.databaseValue)))
            try statement.execute()
            return db.changesCount
        }
    }

    func rows(_ sql: String, _ arguments: [SQLValue]) throws -> [[SQLValue]] {
        try refusals {
            let statement = try statement(sql)
            statement.setUncheckedArguments(StatementArguments(databaseValues: arguments.map(\.databaseValue)))
            let cursor = try Row.fetchCursor(statement)
            var result: [[SQLValue]] = []
            while let row = try cursor.next() {
                var values: [SQLValue] = []
                values.reserveCapacity(row.count)
                for index in 0..<row.count {
                    values.append(SQLValue(row[index] as DatabaseValue))
                }
                result.append(values)
            }
            return result
        }
    }

    /// A cached statement, within the connection's ``StatementCacheBudget``.
    private func statement(_ sql: String) throws -> Statement {
        statements.admit(sql, on: db)
        return try db.cachedStatement(sql: sql)
    }

    /// SQLite's refusals as ``StatementError`` (its message, without the SQL).
    private func refusals<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw StatementError(message: "SQLite: " + (error.message ?? "error \(error.resultCode.rawValue)"))
        }
    }
}

/// Bounds GRDB's per-connection statement cache, which otherwise keeps every distinct SQL text
/// it ever prepared: after ``maximumStatements`` distinct texts on one connection, the
/// connection's cache is emptied and counting starts again.
///
/// One budget serves the connections of one ``SQLiteDatabase``: it lives and goes with them.
final class StatementCacheBudget: Sendable {
    /// Distinct statement texts a connection keeps prepared at most.
    static let maximumStatements = 256

    /// The texts each connection has prepared since its cache was last emptied.
    private let seen = NIOLockedValueBox([ObjectIdentifier: Set<String>]())

    /// Records that `sql` is about to be prepared on `db`, emptying `db`'s cache first when the
    /// text is new and the budget is spent.
    func admit(_ sql: String, on db: Database) {
        let key = ObjectIdentifier(db)
        let release: Bool = seen.withLockedValue { seen in
            var texts = seen[key] ?? []
            guard !texts.contains(sql) else { return false }
            let full = texts.count >= Self.maximumStatements
            if full { texts.removeAll(keepingCapacity: true) }
            texts.insert(sql)
            seen[key] = texts
            return full
        }
        if release { db.releaseMemory() }
    }
}

extension SQLValue {
    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let int): self = .integer(int)
        case .double(let double): self = .real(double)
        case .string(let string): self = .text(string)
        case .blob(let data): self = .text(data.base64EncodedString())
        }
    }

    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let int): int.databaseValue
        case .real(let double): double.databaseValue
        case .text(let string): string.databaseValue
        }
    }
}
