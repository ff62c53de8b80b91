import Foundation
import SOQL

/// Server-side query cursors: the id snapshot of a query, paged by `nextRecordsUrl` locators
/// (`/services/data/vNN.N/query/01g…-2000`). Cursors expire after 15 minutes without use.
actor QueryCursors {
    struct Cursor: Sendable {
        var query: Query
        var version: String
        var includeDeleted: Bool
        var batchSize: Int
        var ids: [String]
        var lastUsed: Date
    }

    private var cursors: [String: Cursor] = [:]
    private var sequence: UInt64 = 0
    private let lifetime: TimeInterval = 15 * 60
    private let maximumCursors = 10_000

    /// Keeps a cursor and returns its locator.
    func open(_ cursor: Cursor) -> String {
        expire()
        sequence += 1
        let locator = SalesforceId(prefix: "01g", sequence: sequence &+ UInt64(UInt32.random(in: 0...UInt32.max)) << 20).value
        if cursors.count >= maximumCursors, let oldest = cursors.min(by: { $0.value.lastUsed < $1.value.lastUsed })?.key {
            cursors[oldest] = nil
        }
        cursors[locator] = cursor
        return locator
    }

    /// The cursor for a locator, refreshed; `nil` when unknown or expired.
    /// Registers cursors whose locators were made while a query ran (child lists).
    func register(_ pending: [(locator: String, cursor: Cursor)]) {
        expire()
        for (locator, cursor) in pending { cursors[locator] = cursor }
    }

    func cursor(_ locator: String) -> Cursor? {
        expire()
        guard var cursor = cursors[locator] else { return nil }
        cursor.lastUsed = Date()
        cursors[locator] = cursor
        return cursor
    }

    private func expire() {
        let limit = Date().addingTimeInterval(-lifetime)
        cursors = cursors.filter { $0.value.lastUsed > limit }
    }
}

/// Collects the cursors a query makes for long child lists while it runs inside a database
/// read; they are registered with ``QueryCursors`` before the response leaves.
final class ChildCursorSink: @unchecked Sendable {
    private let lock = NSLock()
    private var pending: [(locator: String, cursor: QueryCursors.Cursor)] = []

    /// Keeps the cursor and returns its new locator.
    func add(_ cursor: QueryCursors.Cursor) -> String {
        let locator = SalesforceId(prefix: "01g", sequence: UInt64.random(in: 1...(UInt64(1) << 53))).value
        lock.withLock { pending.append((locator, cursor)) }
        return locator
    }

    var cursors: [(locator: String, cursor: QueryCursors.Cursor)] { lock.withLock { pending } }
}
