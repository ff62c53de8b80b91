import Foundation
import GRDB

/// LocalForce's embedded backend: SQLite through GRDB (a WAL pool for files, a queue in memory).
public final class SQLiteDatabase: SQLDatabase {
    private let writer: any DatabaseWriter
    /// A file can be opened by other processes; `:memory:` cannot.
    public let isShared: Bool

    /// Opens `path`, or an in-memory database for `:memory:`.
    public init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        isShared = path != ":memory:"
        if path == ":memory:" {
            writer = try DatabaseQueue(configuration: configuration)
        } else {
            writer = try DatabasePool(path: path, configuration: configuration)
        }
    }

    public func write<T: Sendable>(_ body: @Sendable @escaping (any SQLConnection) throws -> T) async throws -> T {
        try await writer.write { db in try body(GRDBConnection(db: db)) }
    }

    public func read<T: Sendable>(_ body: @Sendable @escaping (any SQLConnection) throws -> T) async throws -> T {
        try await writer.read { db in try body(GRDBConnection(db: db)) }
    }
}

/// A GRDB connection seen through ``SQLConnection``.
struct GRDBConnection: SQLConnection {
    let db: Database
    var dialect: SQLDialect { .sqlite }

    func execute(_ sql: String, _ arguments: [SQLValue]) throws -> Int {
        let statement = try db.cachedStatement(sql: sql)
        statement.setUncheckedArguments(StatementArguments(arguments.map(\.databaseValue)))
        try statement.execute()
        return db.changesCount
    }

    func rows(_ sql: String, _ arguments: [SQLValue]) throws -> [[SQLValue]] {
        let statement = try db.cachedStatement(sql: sql)
        statement.setUncheckedArguments(StatementArguments(arguments.map(\.databaseValue)))
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
