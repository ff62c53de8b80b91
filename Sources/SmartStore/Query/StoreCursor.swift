public import FastJSON
import Locking

/// A query read a page at a time, as the SDK's hybrid bridge keeps it between calls
/// (`StoreCursor`): the total, the number of pages, and the current page's entries.
///
/// <!-- snippet: Snippets/SmartStoreReference.swift#cursor -->
/// ```swift
/// var cursor = try StoreCursor(store: store, querySpec: .all(soup: "accounts", orderPath: "Name", pageSize: 50))
/// show(cursor.currentPageOrderedEntries)
/// try cursor.moveToPage(cursor.currentPageIndex + 1)
/// ```
public struct StoreCursor: Sendable {
    /// The cursor's id, unique in this process (the bridge's `cursorId`).
    public let cursorId: Int
    /// The query.
    public let querySpec: QuerySpec
    /// Entries per page (the query's page size).
    public var pageSize: Int { querySpec.pageSize }
    /// The query's results over all pages, when the cursor opened.
    public let totalEntries: Int
    /// Pages: `totalEntries / pageSize`, rounded up.
    public let totalPages: Int
    /// The page shown, from 0.
    public private(set) var currentPageIndex: Int
    /// That page's entries (or rows), in the query's order.
    public private(set) var currentPageOrderedEntries: [JSONValue]

    private let store: SmartStore
    private let arguments: [JSONValue]?
    private static let ids = Locked(0)

    /// Opens a cursor on the query's first page.
    public init(store: SmartStore, querySpec: QuerySpec, arguments: [JSONValue]? = nil) throws {
        self.store = store
        self.querySpec = querySpec
        self.arguments = arguments
        cursorId = Self.ids.withLock { id in
            id += 1
            return id
        }
        totalEntries = try store.count(querySpec, arguments: arguments)
        totalPages = totalEntries / querySpec.pageSize + (totalEntries % querySpec.pageSize == 0 ? 0 : 1)
        currentPageIndex = 0
        currentPageOrderedEntries = try store.query(querySpec, pageIndex: 0, arguments: arguments)
    }

    /// Moves to page `index`, kept within `0..<totalPages` as the SDK does, and reads it.
    public mutating func moveToPage(_ index: Int) throws {
        let page = max(0, min(index, totalPages - 1))
        currentPageOrderedEntries = try store.query(querySpec, pageIndex: page, arguments: arguments)
        currentPageIndex = page
    }

    /// The cursor as the bridge sends it to JavaScript (`cursorId`, `currentPageIndex`,
    /// `pageSize`, `totalEntries`, `totalPages`, `currentPageOrderedEntries`).
    public var json: JSONValue {
        [
            "cursorId": .int(Int64(cursorId)), "currentPageIndex": .int(Int64(currentPageIndex)), "pageSize": .int(Int64(pageSize)),
            "totalEntries": .int(Int64(totalEntries)), "totalPages": .int(Int64(totalPages)),
            "currentPageOrderedEntries": .array(currentPageOrderedEntries),
        ]
    }
}
