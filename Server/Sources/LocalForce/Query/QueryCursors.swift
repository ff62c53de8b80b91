import Foundation
import NIOConcurrencyHelpers
import SOQL
@_spi(MSyncInternal) import SalesforceWire

/// Server-side query cursors: the id snapshot of a query, paged by `nextRecordsUrl` locators
/// (`/services/data/vNN.N/query/01g…-2000`). Cursors expire after 15 minutes without use, and
/// their ids (packed, see ``IdList``) are kept under ``maximumBytes`` of memory and of the shared
/// table: beyond it the least recently used cursors are dropped (the newest always stays, even
/// alone over the budget), and their locators answer `INVALID_QUERY_LOCATOR`, as Salesforce's do
/// once evicted. The shared table is trimmed every ``trimInterval`` registrations.
///
/// In memory; and, when the database is shared (a SQLite file, PostgreSQL), also in the
/// `lf_cursors` table, so another LocalForce process on the same data can serve the next page
/// (the SOQL is stored as text and parsed again). A process reads its own cursors from memory;
/// the table's copy expires 15 minutes after it was last read from the table.
actor QueryCursors {
    struct Cursor: Sendable {
        var query: Query
        var version: String
        var includeDeleted: Bool
        var batchSize: Int
        var ids: IdList
        var lastUsed: Date
    }

    private let shared: (any SQLDatabase)?
    private var cursors: [String: Cursor] = [:]
    private let lifetime: TimeInterval = 15 * 60
    private let maximumCursors = 10_000
    /// What the ids of all cursors may take, in memory and (shared databases) in `lf_cursors`.
    let maximumBytes: Int
    private var bytes = 0
    /// Registrations between two trims of the shared table (each reads every row's size).
    static let trimInterval = 16
    private var registrations = 0

    init(shared: (any SQLDatabase)? = nil, maximumBytes: Int = 64 << 20) {
        self.shared = shared
        self.maximumBytes = maximumBytes
    }

    /// A new locator (random: processes sharing a database never collide in practice).
    nonisolated static func newLocator() -> String {
        SalesforceId(prefix: "01g", sequence: UInt64.random(in: 1...(UInt64(1) << 53))).value
    }

    /// Keeps a cursor and returns its locator.
    func open(_ cursor: Cursor) async throws -> String {
        let locator = Self.newLocator()
        try await register([(locator, cursor)])
        return locator
    }

    /// Keeps cursors whose locators were made while a query ran (child lists).
    func register(_ pending: [(locator: String, cursor: Cursor)]) async throws {
        guard !pending.isEmpty else { return }
        let evicted = remember(pending)
        if let shared {
            let maximumBytes = self.maximumBytes
            registrations += 1
            let trim = registrations % Self.trimInterval == 1
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let expired = now - Int64(lifetime * 1000)
            try await shared.write { db in
                let p = db.dialect.placeholder
                _ = try db.execute("DELETE FROM lf_cursors WHERE last_used < \(p(1))", [.integer(expired)])
                try Self.delete(evicted, from: db)
                for (locator, cursor) in pending {
                    _ = try db.execute(
                        """
                        INSERT INTO lf_cursors (locator, soql, version, include_deleted, batch_size, ids, last_used)
                        VALUES (\(p(1)), \(p(2)), \(p(3)), \(p(4)), \(p(5)), \(p(6)), \(p(7)))
                        """,
                        [
                            .text(locator), .text(cursor.query.description), .text(cursor.version), .integer(cursor.includeDeleted ? 1 : 0),
                            .integer(Int64(cursor.batchSize)), .text(cursor.ids.commaSeparated), .integer(now),
                        ])
                }
                if trim { try Self.trimTable(db, to: maximumBytes) }
            }
        }
    }

    /// Cursors this process opened stay in memory too: its own next pages skip the database.
    /// Keeps cursors in memory and returns the locators evicted to make room (a shared
    /// database's table drops them too, or another read would bring them back).
    @discardableResult
    private func remember(_ pending: [(locator: String, cursor: Cursor)]) -> [String] {
        expire()
        for (locator, cursor) in pending {
            if let previous = cursors.updateValue(cursor, forKey: locator) { bytes -= previous.ids.byteSize }
            bytes += cursor.ids.byteSize
        }
        guard cursors.count > maximumCursors || (bytes > maximumBytes && cursors.count > 1) else { return [] }
        // Least recently used first, sorted once; the most recently used always stays.
        var evicted: [String] = []
        for (locator, _) in cursors.sorted(by: { $0.value.lastUsed < $1.value.lastUsed }).dropLast() {
            guard cursors.count > maximumCursors || bytes > maximumBytes else { break }
            forget(locator)
            evicted.append(locator)
        }
        return evicted
    }

    private func forget(_ locator: String) {
        guard let cursor = cursors.removeValue(forKey: locator) else { return }
        bytes -= cursor.ids.byteSize
    }

    private static func delete(_ locators: [String], from db: any SQLConnection) throws {
        let p = db.dialect.placeholder
        for locator in locators { _ = try db.execute("DELETE FROM lf_cursors WHERE locator = \(p(1))", [.text(locator)]) }
    }

    /// Deletes the least recently used rows of `lf_cursors` until their ids take at most `maximumBytes`.
    private static func trimTable(_ db: any SQLConnection, to maximumBytes: Int) throws {
        let rows = try db.rows("SELECT locator, length(ids) FROM lf_cursors ORDER BY last_used DESC", [])
        var total = 0
        var evicted: [String] = []
        for (index, row) in rows.enumerated() {
            guard row.count == 2, let locator = row[0].text else { continue }
            total = total.addingReportingOverflow(Int(clamping: row[1].integer ?? 0)).partialValue
            // The newest cursor stays whatever its size.
            if total > maximumBytes, index > 0 { evicted.append(locator) }
        }
        try delete(evicted, from: db)
    }

    /// The cursor for a locator, refreshed; `nil` when unknown or expired. A shared database's
    /// cursors opened by another process are read from `lf_cursors`.
    func cursor(_ locator: String) async throws -> Cursor? {
        expire()
        if var cursor = cursors[locator] {
            cursor.lastUsed = Date()
            cursors[locator] = cursor
            return cursor
        }
        if let shared {
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let expired = now - Int64(lifetime * 1000)
            let row: [SQLValue]? = try await shared.write { db in
                let p = db.dialect.placeholder
                let rows = try db.rows(
                    "SELECT soql, version, include_deleted, batch_size, ids FROM lf_cursors WHERE locator = \(p(1)) AND last_used >= \(p(2))",
                    [.text(locator), .integer(expired)])
                if !rows.isEmpty {
                    _ = try db.execute(
                        "UPDATE lf_cursors SET last_used = \(p(1)) WHERE locator = \(p(2))", [.integer(now), .text(locator)])
                }
                return rows.first
            }
            guard let row, row.count == 5, let text = row[0].text, let query = try? SOQLParser.parse(text) else { return nil }
            let ids = IdList((row[4].text ?? "").split(separator: ",").lazy.map(String.init))
            let batchSize = Int(clamping: row[3].integer ?? Int64(QueryEngine.defaultBatchSize))
            let cursor = Cursor(
                query: query, version: row[1].text ?? "", includeDeleted: row[2].integer == 1,
                batchSize: QueryEngine.batchSizes.contains(batchSize) ? batchSize : QueryEngine.defaultBatchSize, ids: ids, lastUsed: Date()
            )
            let evicted = remember([(locator, cursor)])
            if !evicted.isEmpty { try await shared.write { db in try Self.delete(evicted, from: db) } }
            return cursor
        }
        return nil
    }

    private func expire() {
        let limit = Date().addingTimeInterval(-lifetime)
        for (locator, cursor) in cursors where cursor.lastUsed <= limit { forget(locator) }
    }
}

/// Collects the cursors a query makes for long child lists while it runs inside a database
/// read; they are registered with ``QueryCursors`` before the response leaves.
final class ChildCursorSink: Sendable {
    private let pending = NIOLockedValueBox([(locator: String, cursor: QueryCursors.Cursor)]())

    /// Keeps the cursor and returns its new locator.
    func add(_ cursor: QueryCursors.Cursor) -> String {
        let locator = QueryCursors.newLocator()
        pending.withLockedValue { $0.append((locator, cursor)) }
        return locator
    }

    var cursors: [(locator: String, cursor: QueryCursors.Cursor)] { pending.withLockedValue { $0 } }
}
