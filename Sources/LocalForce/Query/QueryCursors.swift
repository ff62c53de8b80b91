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
