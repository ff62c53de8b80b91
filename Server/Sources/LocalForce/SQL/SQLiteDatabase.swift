import Foundation
import GRDB
import NIOConcurrencyHelpers

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// LocalForce's embedded backend: SQLite through GRDB, in a WAL pool (reads run beside each
/// other and beside the one writer).
///
/// `:memory:` is a pool too, on a private temporary folder (mode 0700) that goes with the
/// database (removed by ``close()``, or when the database is released), so that a long read
/// never makes other readers wait, as it would on SQLite's single in-memory connection; its
/// writes are never flushed to disk. Where no temporary folder can be made, `:memory:` falls
/// back to SQLite's in-memory database (one connection).
public final class SQLiteDatabase: SQLDatabase {
    private let writer: any DatabaseWriter
    /// The statement cache bound of this database's connections.
    private let statements = StatementCacheBudget()
    /// A file can be opened by other processes; `:memory:` cannot.
    public let isShared: Bool
    /// The private folder behind `:memory:`, removed on close or deinit.
    let temporaryFolder: String?
    /// The one closing of `:memory:`: a second ``close()`` (a server's `stop()` and `wait()`)
    /// waits for the first instead of racing it over the folder's files.
    private let closing = NIOLockedValueBox<Task<Void, Never>?>(nil)

    /// Opens `path`, or an in-memory database for `:memory:`.
    ///
    /// - Throws: ``DatabaseOpenError`` naming the path when SQLite cannot open it, when it is not
    ///   a regular file, or when it is a database with tables LocalForce did not make (it never
    ///   writes into another program's database).
    public init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        isShared = path != ":memory:"
        guard !path.isEmpty else { throw DatabaseOpenError("A database path must not be empty (use :memory: for an in-memory database)") }
        if isShared { try Self.checkAdoptable(path) }
        let folder = isShared ? nil : Self.makePrivateFolder()
        temporaryFolder = folder
        do {
            if let folder {
                // Two readers: a long read never holds up a short one, and an org costs few file
                // descriptors (a test process holds many orgs at once).
                var pooled = configuration
                pooled.maximumReaderCount = 2
                let pool = try DatabasePool(path: folder + "/org.sqlite", configuration: pooled)
                // Thrown away with the folder: never worth a flush (set on the writer after
                // GRDB's own WAL setup, which sets NORMAL).
                try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = OFF") }
                writer = pool
            } else if isShared {
                writer = try DatabasePool(path: path, configuration: configuration)
            } else {
                writer = try DatabaseQueue(configuration: configuration)
            }
        } catch let error as DatabaseError {
            Self.remove(folder)
            throw DatabaseOpenError("Cannot open the SQLite database at \(path): \(error.message ?? error.description)")
        } catch {
            Self.remove(folder)
            throw DatabaseOpenError("Cannot open the SQLite database at \(path): \(error)")
        }
    }

    deinit {
        // Removing the files of an open database is safe: SQLite keeps them until it closes them.
        Self.remove(temporaryFolder)
    }

    /// Copies what the write-ahead log holds into the database file and empties the log, so
    /// that the file alone holds every committed write (to copy or keep it). Waits for the
    /// writer, and for readers still on an older snapshot (SQLite's busy timeout; then it
    /// throws). Does nothing for `:memory:`.
    public func checkpoint() async throws {
        guard isShared, let pool = writer as? DatabasePool else { return }
        _ = try await pool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
    }

    /// For `:memory:`, closes the connections and removes the private folder: the database
    /// cannot be used afterwards. A file stays open until the database is released.
    public func close() async {
        guard let temporaryFolder else { return }
        let pool = writer as? DatabasePool
        let task = closing.withLockedValue { existing -> Task<Void, Never> in
            if let existing { return existing }
            let made = Task {
                // Closing waits for the pool's readers. An async read gives its reader back on
                // Swift's cooperative threads, so waiting on one of them can block every thread
                // that would let a reader go (two closes on a 2-core machine did, while a
                // background read was in flight): the wait happens on a Dispatch thread instead.
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    DispatchQueue.global().async {
                        try? pool?.close()
                        continuation.resume()
                    }
                }
                Self.remove(temporaryFolder)
            }
            existing = made
            return made
        }
        await task.value
    }

    /// A new folder only this user can enter, in the temporary directory, holding this
    /// process's id (`owner.pid`) so that a later process removes it if this one is killed;
    /// `nil` when none can be made.
    private static func makePrivateFolder() -> String? {
        _ = sweptOnce
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("localforce-\(UUID().uuidString)").path
        do {
            try FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try Data("\(ProcessInfo.processInfo.processIdentifier)".utf8).write(to: URL(fileURLWithPath: folder + "/owner.pid"))
            return folder
        } catch {
            remove(folder)
            return nil
        }
    }

    private static let sweptOnce: Void = removeAbandonedFolders()

    /// Removes the `:memory:` folders of processes that no longer run (killed before they could
    /// remove their own); done once per process, before its first. A folder without an owner
    /// is left alone.
    static func removeAbandonedFolders() {
        let temporary = FileManager.default.temporaryDirectory
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? [] where name.hasPrefix("localforce-") {
            let folder = temporary.appendingPathComponent(name).path
            guard let text = try? String(contentsOfFile: folder + "/owner.pid", encoding: .utf8),
                let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0,
                kill(pid, 0) != 0, errno == ESRCH
            else { continue }
            remove(folder)
        }
    }

    /// Removes a folder, again if files vanished under the first walk (SQLite deletes its log
    /// files as it closes the last connection).
    private static func remove(_ folder: String?) {
        guard let folder else { return }
        for _ in 0..<3 where FileManager.default.fileExists(atPath: folder) {
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    /// Runs `body` in a write transaction (rolled back if it throws); writes are serialized.
    public func write<T: Sendable>(_ body: @Sendable @escaping (any SQLConnection) throws -> T) async throws -> T {
        let statements = self.statements
        return try await writer.write { db in try body(GRDBConnection(db: db, statements: statements)) }
    }

    /// Runs `body` with a consistent read view (a WAL snapshot that waits neither for writes nor for other reads).
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

    /// GRDB's arguments for `values`, mapped through existentials: its initialiser for a sequence
    /// of a concrete type maps through a generic key path, which the runtime instantiates on every
    /// call (more than half of a point lookup's time).
    private static func statementArguments(_ values: [SQLValue]) -> StatementArguments {
        StatementArguments(values.map { Optional($0.databaseValue as any DatabaseValueConvertible) })
    }

    func execute(_ sql: String, _ arguments: [SQLValue]) throws -> Int {
        try refusals {
            let statement = try statement(sql)
            statement.setUncheckedArguments(Self.statementArguments(arguments))
            try statement.execute()
            return db.changesCount
        }
    }

    func rows(_ sql: String, _ arguments: [SQLValue]) throws -> [[SQLValue]] {
        try refusals {
            let statement = try statement(sql)
            statement.setUncheckedArguments(Self.statementArguments(arguments))
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

    /// A cached statement, within the connection's ``StatementCacheBudget``; a long text (a
    /// large `IN` list) is prepared for this use only, so its memory goes with it.
    private func statement(_ sql: String) throws -> Statement {
        guard statements.admit(sql, on: db) else { return try db.makeStatement(sql: sql) }
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
/// it ever prepared. A prepared statement takes about a hundred times its text in memory (a
/// 25,000-value `IN` list: ~200 KB of text, ~6 MB prepared), so the bound is on text bytes as
/// well as on count: texts over ``maximumCachedLength`` are never cached, and once a connection's
/// cached texts would pass ``maximumStatements`` or ``maximumBytes`` its cache is emptied and
/// counting starts again. Cached statements thus hold at most ~``maximumBytes`` × 100 bytes (about
/// 25 MB) per connection.
///
/// One budget serves the connections of one ``SQLiteDatabase``: it lives and goes with them.
final class StatementCacheBudget: Sendable {
    /// Distinct statement texts a connection keeps prepared at most.
    static let maximumStatements = 256
    /// The longest text (UTF-8 bytes) that is cached.
    static let maximumCachedLength = 8 * 1024
    /// The total text (UTF-8 bytes) of the statements a connection keeps prepared at most.
    static let maximumBytes = 256 * 1024

    /// Per connection, the texts prepared since its cache was last emptied and their bytes.
    private let seen = NIOLockedValueBox([ObjectIdentifier: (texts: Set<String>, bytes: Int)]())

    /// Whether `sql` may be cached on `db`; emptying `db`'s cache first when the text is new
    /// and the budget is spent.
    func admit(_ sql: String, on db: Database) -> Bool {
        let length = sql.utf8.count
        guard length <= Self.maximumCachedLength else { return false }
        let key = ObjectIdentifier(db)
        let release: Bool = seen.withLockedValue { seen in
            var entry = seen[key] ?? ([], 0)
            guard !entry.texts.contains(sql) else { return false }
            let full = entry.texts.count >= Self.maximumStatements || entry.bytes + length > Self.maximumBytes
            if full { entry = ([], 0) }
            entry.texts.insert(sql)
            entry.bytes += length
            seen[key] = entry
            return full
        }
        if release { db.releaseMemory() }
        return true
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
