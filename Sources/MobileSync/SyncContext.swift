public import FastJSON
import Locking
public import SalesforceREST
import SalesforceWire
public import SmartStore

/// What a running sync gives its target: the server, the store, and the sync's reporting.
///
/// ``SyncManager`` makes one for each run and passes it to
/// ``SyncDownTarget/syncDown(_:context:)``, ``SyncDownTarget/cleanGhosts(_:context:)`` and
/// ``SyncUpTarget/syncUp(_:context:)``. A target that writes the store itself (several soups,
/// its own merge rules) uses the helpers below, which keep the SDK's bookkeeping: records
/// written clean and marked with the sync's id, dirty records left alone in LEAVE_IF_CHANGED
/// mode, ghosts removed only among the sync's own clean records.
///
/// <!-- snippet: Snippets/MobileSyncReference.swift#syncContext -->
/// ```swift
/// func syncDown(_ sync: inout SyncState, context: SyncContext) async throws {
///     for page in pages {
///         try await context.checkStop()
///         let latest = try await context.saveRecords(page, in: sync.soupName, for: sync)
///         sync.maxTimeStamp = max(sync.maxTimeStamp, latest ?? -1)
///         try await context.save(&sync)
///     }
/// }
/// ```
public struct SyncContext: Sendable {
    /// The client of the sync's manager.
    public let client: RestClient
    /// The store of the sync's manager.
    public let store: SmartStore
    private let manager: SyncManager
    private let onUpdate: (@Sendable (SyncState) -> Void)?
    /// Whether this run is a ghost cleanup: ``save(_:)`` then only checks for a stop, since the
    /// sync's state describes its last run, not the cleanup.
    let isCleanup: Bool
    /// Conflicts ``saveRecords(_:in:idFieldName:modificationDateFieldName:for:)`` found, added to
    /// the sync's ``SyncState/conflictCount`` when the run ends.
    let conflictTally = Locked(0)
    /// ``SyncManager/lostCreateWait`` in milliseconds.
    var lostCreateWait: Int64 { manager.lostCreateWaitMilliseconds }

    init(manager: SyncManager, onUpdate: (@Sendable (SyncState) -> Void)?, isCleanup: Bool = false) {
        self.client = manager.client
        self.store = manager.store
        self.manager = manager
        self.onUpdate = onUpdate
        self.isCleanup = isCleanup
    }

    /// Saves the sync's state (progress, counters, ``SyncState/maxTimeStamp``) and tells the
    /// run's `onUpdate` closure and every ``SyncManager/updates()`` listener. A target saves
    /// after each page or batch; the manager saves the first and last states itself.
    public func save(_ sync: inout SyncState) async throws {
        guard !isCleanup else { return try await checkStop() }
        sync = try await manager.saved(sync, onUpdate: onUpdate)
    }

    /// Records conflicts a target found (after writing them in the store) so that the manager's
    /// ``SyncManager/conflictUpdates()`` listeners hear of them.
    func report(_ conflicts: [SyncConflict]) async {
        await manager.report(conflicts)
    }

    /// Throws ``SyncError/stopped`` when ``SyncManager/stop()`` was called or the task running
    /// the sync was cancelled. Call it between pages and batches: the sync then ends STOPPED,
    /// and a resync picks it up.
    public func checkStop() async throws {
        try await manager.checkStop()
    }

    /// Writes records received from the server into `soup`, as the SDK's
    /// `saveRecordsToLocalStore`: each one clean (the four local flags false, no
    /// `__last_error__`), marked with the sync's id, matched to an existing entry by
    /// `idFieldName`; records dirty locally are skipped in LEAVE_IF_CHANGED mode, and merged
    /// field by field in MERGE_FIELDS mode (conflicts are counted in the sync's
    /// ``SyncState/conflictCount`` when it ends).
    ///
    /// - Returns: the latest `modificationDateFieldName` of the records (epoch ms), or nil when
    ///   there are none or one lacks a readable date (the SDK's rule: such a page does not
    ///   advance ``SyncState/maxTimeStamp``).
    @discardableResult
    public func saveRecords(
        _ records: [JSONValue], in soup: String, idFieldName: String = "Id", modificationDateFieldName: String = "LastModifiedDate",
        for sync: SyncState
    ) async throws -> Int64? {
        guard !records.isEmpty else { return nil }
        let result = try await store.ingestPage(
            JSONValue.array(records).jsonBytes, into: soup, recordsPath: "", idPath: idFieldName, timestampPath: modificationDateFieldName,
            skipDirty: sync.options.mergeMode.keepsLocalChanges, keepNewer: true, setFields: LocalFields.clean(syncId: sync.id),
            removeFields: LocalFields.ownedFields)
        if sync.options.mergeMode == .mergeFields {
            let conflicts = try await SyncDownMerge(
                store: store, soup: soup, idFieldName: idFieldName, modificationDateFieldName: modificationDateFieldName, syncId: sync.id
            ).merge(records)
            conflictTally.withLock { $0 += conflicts.count }
            await report(conflicts)
        }
        guard result.recordsWithoutTimestamp == 0 else { return nil }
        return result.maxTimestamp.flatMap(SalesforceTime.parse)
    }

    /// Deletes the sync's clean records of `soup` whose server ids `remote` does not return.
    /// The soup is read 500 entries at a time in entry order, and `remote` is asked about each
    /// slice, so memory does not grow with the soup; a stop is checked between slices. Each
    /// entry is deleted only if it is still the sync's and clean in the deleting transaction: a
    /// record the app edited meanwhile stays, dirty, for the next sync up.
    ///
    /// - Parameters:
    ///   - soup: the soup to clean.
    ///   - idFieldName: the field holding a record's server id.
    ///   - syncId: the sync whose records are considered (`__sync_id__`).
    ///   - remote: given server ids held locally, returns those the server still has
    ///     (and that still match the target).
    /// - Returns: how many entries were deleted.
    public func deleteGhosts(
        soup: String, idFieldName: String = "Id", syncId: Int64, remote: ([String]) async throws -> Set<String>
    ) async throws -> Int {
        let sql = """
            select {\(soup):_soupEntryId}, {\(soup):\(idFieldName)} from {\(soup)}
            where +{\(soup):\(LocalFields.syncId)} = ? and \(LocalFields.cleanPredicate(soup: soup)) and {\(soup):_soupEntryId} > ?
            order by {\(soup):_soupEntryId}
            """
        // `+`: the entry id (the rowid) drives the range and the order, not the sync id's index
        // (see deleteGhostsByMerge).
        let start = try await store.takeStamp()
        var removed = 0
        var after: Int64 = 0
        while true {
            try await checkStop()
            let rows = try await store.query(.smart(sql, pageSize: 500), arguments: [.int(syncId), .int(after)])
            guard !rows.isEmpty else { break }
            var local: [String: Int64] = [:]
            for row in rows {
                guard let values = row.arrayValue, let entryId = values.first?.int64Value else { continue }
                after = entryId
                if let remoteId = values.count > 1 ? values[1].stringValue : nil { local[remoteId] = entryId }
            }
            let existing = try await remote(Array(local.keys))
            let ghosts = local.filter { !existing.contains($0.key) }.map(\.value)
            removed += try await deleteStillClean(ghosts, soup: soup, syncId: syncId, writtenBefore: start)
        }
        return removed
    }

    /// Deletes those of `ids` that are still the sync's clean records, not written since the
    /// cleanup began (stamp `since`), checked in the deleting transaction: an entry edited
    /// (dirty), taken by another sync, or written by a live sync or another sync since the
    /// cleanup started (it may hold a record the server's ids, read before, did not) stays.
    /// Returns how many were deleted.
    func deleteStillClean(_ ids: [Int64], soup: String, syncId: Int64, writtenBefore since: Int64) async throws -> Int {
        var removed = 0
        for start in stride(from: 0, to: ids.count, by: 500) {
            let slice = Array(ids[start..<min(ids.count, start + 500)])
            let sql = """
                select {\(soup):_soupEntryId} from {\(soup)}
                where {\(soup):_soupEntryId} in (\(Array(repeating: "?", count: slice.count).joined(separator: ",")))
                and +{\(soup):\(LocalFields.syncId)} = ? and \(LocalFields.cleanPredicate(soup: soup))
                and {\(soup):_soupLastModifiedDate} <= ?
                """
            let arguments = slice.map(JSONValue.int) + [.int(syncId), .int(since)]
            removed += try await store.inTransaction { transaction in
                let rows = try transaction.query(.smart(sql, pageSize: slice.count), arguments: arguments)
                let clean = rows.compactMap { $0.arrayValue?.first?.int64Value }
                try transaction.delete(clean, from: soup)
                return clean.count
            }
        }
        return removed
    }

    /// Deletes the sync's clean records of `soup` whose server ids are not among those
    /// `nextServerPage` yields, page by page, in ascending order (byte-wise). The soup is read in
    /// the same order, 2,000 ids at a time (through its index on `idFieldName`, when it has
    /// one), and merged against the server's pages: memory holds a page of each side and the
    /// ghosts found.
    ///
    /// Nothing is deleted until every server page has been read and found ascending; otherwise
    /// it returns nil without deleting anything, and the caller falls back to
    /// ``deleteGhosts(soup:idFieldName:syncId:remote:)``. An entry is deleted only if it is still
    /// the sync's and clean in the deleting transaction.
    ///
    /// - Returns: how many entries were deleted, or nil when the server's order was not the
    ///   merge's.
    public func deleteGhostsByMerge(
        soup: String, idFieldName: String = "Id", syncId: Int64, nextServerPage: () async throws -> [String]?
    ) async throws -> Int? {
        let sql = """
            select {\(soup):_soupEntryId}, {\(soup):\(idFieldName)} from {\(soup)}
            where +{\(soup):\(LocalFields.syncId)} = ? and \(LocalFields.cleanPredicate(soup: soup)) and {\(soup):\(idFieldName)} > ?
            order by {\(soup):\(idFieldName)}
            """
        // `+` keeps SQLite off the sync id's index: every entry of a one-sync soup matches it,
        // and walking it would sort the soup for each page (100k entries: 3.4 s instead of
        // 0.16 s). The id's index serves the range and the order.
        let start = try await store.takeStamp()
        var ghosts: [Int64] = []
        var cursor = ServerCursor()
        var after = ""
        while true {
            try await checkStop()
            let rows = try await store.query(.smart(sql, pageSize: Self.mergePageSize), arguments: [.int(syncId), .string(after)])
            guard !rows.isEmpty else { break }
            for row in rows {
                guard let values = row.arrayValue, values.count > 1, let entryId = values[0].int64Value, let id = values[1].stringValue
                else { continue }
                after = id
                // Move the server's cursor to the first id not below this one.
                guard try await seek(&cursor, to: id, nextServerPage: nextServerPage) else {
                    return nil // not ascending: not the merge's order
                }
                if cursor.index >= cursor.server.count || cursor.server[cursor.index] != id { ghosts.append(entryId) }
            }
        }
        // The rest of the server's ids are read too: a decision above holds only if the whole
        // stream is ascending, and an id out of order can come after the soup's last one.
        guard try await drain(&cursor, nextServerPage: nextServerPage) else { return nil }
        return try await deleteStillClean(ghosts, soup: soup, syncId: syncId, writtenBefore: start)
    }

    /// Where ``deleteGhostsByMerge(soup:idFieldName:syncId:nextServerPage:)`` is in the server's ids.
    private struct ServerCursor {
        /// The server's current page of ids.
        var server: [String] = []
        /// The position in `server` of the first id not yet passed.
        var index = 0
        /// Whether the server has no more pages.
        var serverDone = false
        /// The last id passed, which the next must not be below.
        var passed: String?
    }

    /// Moves the server's cursor to its first id not below `id`, reading pages as needed; false
    /// when the server's ids are found out of order.
    private func seek(_ cursor: inout ServerCursor, to id: String, nextServerPage: () async throws -> [String]?) async throws -> Bool {
        while true {
            if cursor.index == cursor.server.count {
                if cursor.serverDone { break }
                try await checkStop()
                guard let page = try await nextServerPage() else {
                    cursor.serverDone = true
                    break
                }
                cursor.server = page
                cursor.index = 0
                continue
            }
            let candidate = cursor.server[cursor.index]
            if let passed = cursor.passed, candidate < passed { return false }
            guard candidate < id else { break }
            cursor.passed = candidate
            cursor.index += 1
        }
        return true
    }

    /// Reads the rest of the server's ids; false when they are found out of order.
    private func drain(_ cursor: inout ServerCursor, nextServerPage: () async throws -> [String]?) async throws -> Bool {
        while true {
            while cursor.index < cursor.server.count {
                if let passed = cursor.passed, cursor.server[cursor.index] < passed { return false }
                cursor.passed = cursor.server[cursor.index]
                cursor.index += 1
            }
            guard !cursor.serverDone else { break }
            try await checkStop()
            guard let page = try await nextServerPage() else { break }
            cursor.server = page
            cursor.index = 0
        }
        return true
    }

    /// Local ids read per page by ``deleteGhostsByMerge(soup:idFieldName:syncId:nextServerPage:)``.
    static let mergePageSize = 2000

    /// `_soupEntryId`s of the dirty entries of `soup`, ascending: what a sync up sends unless its
    /// target chooses otherwise (``SoupSyncUpTarget/entryIdsToSyncUp(soupName:context:)``).
    /// See `SmartStore.dirtyEntryIds(soup:)`.
    public func dirtyEntryIds(soup: String) async throws -> [Int64] {
        try await store.dirtyEntryIds(soup: soup)
    }

    /// The values of `field` in the dirty entries of `soup`: the SDK's `getIdsToSkip` (with the
    /// id field) for a sync down in LEAVE_IF_CHANGED mode. See `SmartStore.dirtyRecordIds(soup:idField:)`.
    public func dirtyValues(of field: String, in soup: String) async throws -> Set<String> {
        try await store.dirtyRecordIds(soup: soup, idField: field)
    }

    /// Throws `SmartStoreError/unknownSoup(_:)` for the first of `soups` the store lacks:
    /// checked before a target that writes several soups fetches anything.
    public func requireSoups(_ soups: [String]) throws {
        for soup in soups where try !store.hasSoup(soup) { throw SmartStoreError.unknownSoup(soup) }
    }
}
