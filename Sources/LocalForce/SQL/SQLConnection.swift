/// What the record logic needs from a SQL database: statements with bound values.
///
/// The logic above it (records, SOQL execution) is synchronous and runs inside
/// ``SQLDatabase/write(_:)`` / ``SQLDatabase/read(_:)``, which give it one connection and one
/// transaction. Values are always bound, never spliced.
public protocol SQLConnection {
    /// The SQL flavour statements are written in.
    var dialect: SQLDialect { get }
    /// Runs a statement; returns the number of rows changed.
    @discardableResult
    func execute(_ sql: String, _ arguments: [SQLValue]) throws -> Int
    /// Runs a query and returns its rows.
    func rows(_ sql: String, _ arguments: [SQLValue]) throws -> [[SQLValue]]
}

extension SQLConnection {
    /// The first column of the first row, if any.
    func scalar(_ sql: String, _ arguments: [SQLValue] = []) throws -> SQLValue? {
        try rows(sql, arguments).first?.first
    }
}

/// A database holding LocalForce's records.
public protocol SQLDatabase: Sendable {
    /// Runs `body` in a write transaction (rolled back if it throws).
    func write<T: Sendable>(_ body: @Sendable @escaping (any SQLConnection) throws -> T) async throws -> T
    /// Runs `body` with a consistent read view.
    func read<T: Sendable>(_ body: @Sendable @escaping (any SQLConnection) throws -> T) async throws -> T
}

/// The differences between SQL flavours that the generated SQL cares about.
public struct SQLDialect: Sendable {
    /// Placeholder for the n-th (1-based) argument.
    public var placeholder: @Sendable (Int) -> String
    /// Column type for each kind of stored value.
    public var textType: String
    public var caseInsensitiveTextType: String
    public var integerType: String
    public var realType: String
    /// A query returning the column names of the table named by its one argument.
    public var tableColumnsSQL: String
    /// The collation clause that orders text byte-wise.
    public var binaryCollation: String = "COLLATE BINARY"

    /// SQLite: `?` placeholders, `COLLATE NOCASE` for case-insensitive text.
    public static let sqlite = SQLDialect(placeholder: { _ in "?" }, textType: "TEXT", caseInsensitiveTextType: "TEXT COLLATE NOCASE",
                                          integerType: "INTEGER", realType: "REAL", tableColumnsSQL: "SELECT name FROM pragma_table_info(?)")

    /// A double-quoted identifier (names are validated by the schema; quotes are doubled anyway).
    static func quote(_ identifier: String) -> String {
        // Plain Swift: Foundation's replacingOccurrences bridges through NSString on Linux and
        // once cost a third of a record insert.
        guard identifier.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + identifier + "\"" }
        return "\"" + identifier.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }
}
