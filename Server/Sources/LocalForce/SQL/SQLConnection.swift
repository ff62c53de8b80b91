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
    /// Releases connections (the server calls it when it stops).
    func close() async
    /// Whether other processes may use the same data (a file, a server): query cursors are then
    /// kept in the database, so any of them can serve a `nextRecordsUrl`.
    var isShared: Bool { get }
}

extension SQLDatabase {
    /// Nothing to release by default.
    public func close() async {}
    /// Not shared by default: cursors stay in memory.
    public var isShared: Bool { false }
}

/// The differences between SQL flavours that the generated SQL cares about.
public struct SQLDialect: Sendable {
    /// Placeholder for the n-th (1-based) argument.
    public var placeholder: @Sendable (Int) -> String
    /// Column type for each kind of stored value.
    public var textType: String
    /// Column type for text compared case-insensitively, as Salesforce compares names and ids' text.
    public var caseInsensitiveTextType: String
    /// Column type for integers (64-bit).
    public var integerType: String
    /// Column type for floating-point numbers.
    public var realType: String
    /// A query returning the column names of the table named by its one argument.
    public var tableColumnsSQL: String
    /// `column` ordered byte-wise (UTF-8), whatever its collation.
    public var binaryOrder: @Sendable (String) -> String = { "\($0) COLLATE BINARY" }
    /// `expression LIKE pattern` matching case-insensitively (SQLite's LIKE is, for ASCII).
    public var caseInsensitiveLike: @Sendable (String, String) -> String = { "\($0) LIKE \($1)" }
    /// What follows a query without LIMIT that has an OFFSET.
    public var unlimited: String = "LIMIT -1"
    /// Statements run once before the tables are created (extensions, collations).
    public var setupStatements: [String] = []
    /// Whether writers run concurrently (PostgreSQL): record ids then come from sequences and
    /// write stamps from each process's clock, so no counter row is held by every writer until
    /// it commits. False (SQLite, one writer at a time): counter rows, unique stamps across
    /// processes.
    public var concurrentWriters = false
    /// A part of a stored date (`YYYY-MM-DD` text) or datetime (epoch milliseconds), in UTC:
    /// `year`, `month`, `day`, `weekday` (1 = Sunday), `dayOfYear`, `hour` as integers, or
    /// `date` as `YYYY-MM-DD` text. Arguments: the part, the column, whether it is a datetime.
    public var datePart: @Sendable (String, String, Bool) -> String = { part, column, isDateTime in
        // Real division: an integer one truncates toward zero, a second off before 1970.
        let source = isDateTime ? "\(column) / 1000.0, 'unixepoch'" : column
        switch part {
        case "date": return "date(\(source))"
        case "weekday": return "(CAST(strftime('%w', \(source)) AS INTEGER) + 1)"
        default:
            let format = ["year": "%Y", "month": "%m", "day": "%d", "dayOfYear": "%j", "hour": "%H"][part] ?? "%Y"
            return "CAST(strftime('\(format)', \(source)) AS INTEGER)"
        }
    }

    /// SQLite: `?` placeholders, `COLLATE NOCASE` for case-insensitive text.
    public static let sqlite = SQLDialect(
        placeholder: { _ in "?" }, textType: "TEXT", caseInsensitiveTextType: "TEXT COLLATE NOCASE",
        integerType: "INTEGER", realType: "REAL", tableColumnsSQL: "SELECT name FROM pragma_table_info(?)")

    /// PostgreSQL: `$n` placeholders, 64-bit integers, and case-insensitive text through a
    /// nondeterministic ICU collation (`=`, `IN` and `ORDER BY` ignore case, as SOQL does);
    /// LIKE switches to the byte-wise "C" collation and ILIKE, since PostgreSQL 15 cannot LIKE
    /// under a nondeterministic collation.
    public static let postgres: SQLDialect = {
        var dialect = SQLDialect(
            placeholder: { "$\($0)" }, textType: "TEXT", caseInsensitiveTextType: "TEXT COLLATE lf_nocase",
            integerType: "BIGINT", realType: "DOUBLE PRECISION",
            tableColumnsSQL: "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1")
        dialect.binaryOrder = { "\($0) COLLATE \"C\"" }
        dialect.caseInsensitiveLike = { "\($0) COLLATE \"C\" ILIKE \($1)" }
        dialect.unlimited = "LIMIT ALL"
        dialect.concurrentWriters = true
        dialect.datePart = { part, column, isDateTime in
            let source = isDateTime ? "(to_timestamp(\(column) / 1000.0) AT TIME ZONE 'UTC')" : "(CAST(\(column) AS DATE))"
            switch part {
            case "date": return "to_char(\(source), 'YYYY-MM-DD')"
            case "weekday": return "(CAST(EXTRACT(DOW FROM \(source)) AS BIGINT) + 1)"
            default:
                let field = ["year": "YEAR", "month": "MONTH", "day": "DAY", "dayOfYear": "DOY", "hour": "HOUR"][part] ?? "YEAR"
                return "CAST(EXTRACT(\(field) FROM \(source)) AS BIGINT)"
            }
        }
        dialect.setupStatements = [
            "DO $$ BEGIN CREATE COLLATION lf_nocase (provider = icu, locale = 'und-u-ks-level2', deterministic = false); EXCEPTION WHEN duplicate_object THEN NULL; END $$"
        ]
        return dialect
    }()

    /// A double-quoted identifier (names are validated by the schema; quotes are doubled anyway).
    static func quote(_ identifier: String) -> String {
        // Plain Swift: Foundation's replacingOccurrences bridges through NSString on Linux and
        // once cost a third of a record insert.
        guard identifier.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + identifier + "\"" }
        return "\"" + identifier.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }
}

/// A statement the database refused, with the engine's message and never the SQL text or its
/// values: errors can reach clients, and generated SQL is nobody's business but the server's.
package struct StatementError: Error, CustomStringConvertible {
    package var message: String
    package var description: String { message }

    package init(message: String) {
        self.message = message
    }
}

/// A database that could not be opened, with the path or address it was opened at.
public struct DatabaseOpenError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, naming the database.
    public var message: String

    /// An error with its message.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
