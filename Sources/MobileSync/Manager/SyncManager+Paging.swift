import FastJSON
import SmartStore

/// Paging syncs (``PagingSyncDownTarget``): per page, deletes first, then find-or-create.
///
/// For a page whose keys run from `first` to `last`, after a previous page that ended at `previous`:
/// - local records with a key in `first...last` that the page lacks are gone (certain: the page
///   is a contiguous slice of the server's order);
/// - on the first page, keys below `first` are gone; on a short page, keys above `last`; on an
///   empty page, keys above `previous` (all of them on an empty first page);
/// - keys between `previous` and `first` were deleted between two pages, *or* skipped because
///   rows before the sync's position were deleted meanwhile (pages shifted left). Before deleting
///   that gap (or an empty page's tail) the previous page is fetched again: if it still ends at
///   `previous` nothing shifted and the gap goes; if not, the gap is kept.
/// - a page starting at or before `previous` means rows were inserted before the position (pages
///   shifted right; the inserted rows were not seen).
/// A pass that saw a shift is followed by another pass, up to the target's `maximumPasses`.
/// Only records this sync wrote are deleted, and never dirty ones in LEAVE_IF_CHANGED mode.
extension SyncManager {
    func runPagingSync(_ sync: inout SyncState, target: PagingSyncDownTarget, onUpdate: (@Sendable (SyncState) -> Void)?) async throws {
        let specs = try store.indexSpecs(ofSoup: sync.soupName)
        for path in [target.keyField, LocalFields.syncId, LocalFields.local] where !specs.contains(where: { $0.path == path }) {
            throw SyncError.invalidTarget("paging sync: soup \(sync.soupName) needs an index on \(path)")
        }
        for _ in 0..<target.maximumPasses {
            let shifted = try await pagingPass(&sync, target: target, onUpdate: onUpdate)
            if !shifted { return }
        }
        throw SyncError.invalidSyncState(
            "paging sync: the server's pages shifted during each of \(target.maximumPasses) passes; run it again")
    }

    /// One pass over every page. Returns whether pages shifted under it.
    private func pagingPass(_ sync: inout SyncState, target: PagingSyncDownTarget, onUpdate: (@Sendable (SyncState) -> Void)?) async throws
        -> Bool
    {
        let ranges = PagingRanges(
            store: store, soup: sync.soupName, keyField: target.keyField, syncId: sync.id,
            keepDirty: sync.options.mergeMode == .leaveIfChanged)
        var shifted = false
        var previous: PagingKey?
        var index = target.firstPageIndex
        while true {
            try checkStop()
            let page = try await target.page(index, client: client)
            sync.pagesFetched += 1
            sync.recordsFetched += page.records.count
            if let total = page.totalSize { sync.totalSize = total }
            guard let first = page.records.first?.key, let last = page.records.last?.key else {
                if try await boundaryHolds(after: previous, upTo: nil, pageIndex: index, target: target, ranges: ranges) {
                    sync.recordsDeleted += try ranges.delete(above: previous, below: nil)
                } else {
                    shifted = true
                }
                break
            }
            if let previous, first <= previous {
                shifted = true // rows inserted before the position: this page repeats some
            } else if try await boundaryHolds(after: previous, upTo: first, pageIndex: index, target: target, ranges: ranges) {
                sync.recordsDeleted += try ranges.delete(above: previous, below: first)
            } else {
                shifted = true
            }
            sync.recordsDeleted += try ranges.delete(from: first, through: last, keeping: Set(page.records.map(\.key)))
            try findOrCreate(page, target: target, ranges: ranges, sync: sync)
            if page.records.count < target.pageSize {
                sync.recordsDeleted += try ranges.delete(above: last, below: nil)
                break
            }
            previous = max(previous ?? last, last)
            index += 1
            if sync.totalSize > 0 { sync.progress = min(99, sync.recordsFetched * 100 / sync.totalSize) }
            try save(&sync, onUpdate: onUpdate)
        }
        return shifted
    }

    /// Whether local records between `previous` and `upper` (exclusive; unbounded when nil) may
    /// be deleted: there are none, or the page before `pageIndex` still ends at `previous`.
    private func boundaryHolds(
        after previous: PagingKey?, upTo upper: PagingKey?, pageIndex: Int,
        target: PagingSyncDownTarget, ranges: PagingRanges
    ) async throws -> Bool {
        guard let previous, pageIndex > target.firstPageIndex, try ranges.hasRecords(above: previous, below: upper) else { return true }
        return try await target.page(pageIndex - 1, client: client).records.last?.key == previous
    }

    /// Creates the page's records that are missing locally and updates those whose content
    /// changed, after one lookup by key. A page with no local match at all (a first sync) goes
    /// to the store's bulk ingest as received.
    private func findOrCreate(_ page: PagingSyncDownTarget.Page, target: PagingSyncDownTarget, ranges: PagingRanges, sync: SyncState) throws
    {
        let records = page.records
        let local = try ranges.entries(withKeys: records.map(\.key))
        let clean = LocalFields.clean(syncId: sync.id)
        if local.isEmpty {
            try store.ingestPage(
                page.body, into: sync.soupName, recordsPath: target.recordsPath ?? "", idPath: target.keyField,
                timestampPath: nil, setFields: clean)
            return
        }
        var writes: [JSONValue] = []
        var duplicates: [Int64] = []
        for (key, record) in records {
            guard case .object(var members) = record else { continue }
            let matches = local[key] ?? []
            duplicates += matches.dropFirst().compactMap { $0["_soupEntryId"]?.int64Value }
            if let existing = matches.first {
                if existing[LocalFields.local]?.boolValue == true && sync.options.mergeMode == .leaveIfChanged { continue }
                let unchanged = members.allSatisfy { existing[$0.key] == $0.value } && clean.allSatisfy { existing[$0.key] == $0.value }
                if unchanged { continue }
                members["_soupEntryId"] = existing["_soupEntryId"]
            }
            members.merge(clean) { $1 }
            writes.append(.object(members))
        }
        try store.upsert(writes, in: sync.soupName)
        try store.delete(duplicates, from: sync.soupName)
    }
}

/// Key-range reads and deletes over one paging sync's records.
struct PagingRanges {
    let store: SmartStore
    let soup: String
    let keyField: String
    let syncId: Int64
    let keepDirty: Bool

    /// The sync's records (clean ones only when dirty ones are kept). The casts keep SQLite from
    /// choosing these low-selectivity indexes over the key's, so every range query costs the
    /// range, not the soup; they also compare alike whatever the index types.
    private var owned: String {
        "cast({\(soup):\(LocalFields.syncId)} as integer) = ?"
            + (keepDirty ? " and cast({\(soup):\(LocalFields.local)} as integer) = 0" : "")
    }

    /// Deletes owned records with `lower < key < upper` (open ends when nil). Returns how many.
    func delete(above lower: PagingKey?, below upper: PagingKey?) throws -> Int {
        try deleteRange(from: lower, inclusive: false, to: upper.map { ($0, false) }, keeping: [])
    }

    /// Deletes owned records with `first <= key <= last` that are not in `keeping`.
    func delete(from first: PagingKey, through last: PagingKey, keeping: Set<PagingKey>) throws -> Int {
        try deleteRange(from: first, inclusive: true, to: (last, true), keeping: keeping)
    }

    /// Whether owned records exist with `lower < key < upper`.
    func hasRecords(above lower: PagingKey, below upper: PagingKey?) throws -> Bool {
        try !keys(from: lower, inclusive: false, to: upper.map { ($0, false) }, limit: 1).isEmpty
    }

    /// Local entries (any owner) by key, for these keys; several entries of one key in entry-id order.
    func entries(withKeys keys: [PagingKey]) throws -> [PagingKey: [JSONValue]] {
        guard !keys.isEmpty else { return [:] }
        let type: PagingSyncDownTarget.KeyType = if case .integer = keys[0] { .integer } else { .string }
        // No ORDER BY: sorting by entry id would tempt SQLite into a table scan instead of the key index.
        let sql =
            "select {\(soup):_soup} from {\(soup)} where {\(soup):\(keyField)} in (" + keys.map { _ in "?" }.joined(separator: ",") + ")"
        var result: [PagingKey: [JSONValue]] = [:]
        for row in try store.query(.smart(sql, pageSize: keys.count * 2 + 10), arguments: keys.map(\.json)) {
            guard let entry = row.arrayValue?.first, let key = PagingKey(entry[keyField], type: type) else { continue }
            result[key, default: []].append(entry)
        }
        return result.mapValues { $0.sorted { ($0["_soupEntryId"]?.int64Value ?? 0) < ($1["_soupEntryId"]?.int64Value ?? 0) } }
    }

    /// Owned entries in a key range, in key order, at most `limit`: (entry id, key).
    private func keys(from lower: PagingKey?, inclusive: Bool, to upper: (key: PagingKey, inclusive: Bool)?, limit: Int) throws -> [(
        Int64, PagingKey?
    )] {
        let column = "{\(soup):\(keyField)}"
        var (conditions, arguments) = ([owned], [JSONValue.int(syncId)])
        if let lower {
            conditions.append(column + (inclusive ? " >= ?" : " > ?"))
            arguments.append(lower.json)
        }
        if let upper {
            conditions.append(column + (upper.inclusive ? " <= ?" : " < ?"))
            arguments.append(upper.key.json)
        }
        let sql =
            "select {\(soup):_soupEntryId}, \(column) from {\(soup)} where " + conditions.joined(separator: " and ") + " order by \(column)"
        return try store.query(.smart(sql, pageSize: limit), arguments: arguments).compactMap { row in
            guard let values = row.arrayValue, let id = values.first?.int64Value else { return nil }
            let key = values.count > 1 ? PagingKey(values[1], type: .integer) ?? PagingKey(values[1], type: .string) : nil
            return (id, key)
        }
    }

    /// Deletes owned records in a key range whose key is not kept, 1,000 at a time in key order
    /// (each query uses the key's index and costs the range, not the soup).
    private func deleteRange(from lower: PagingKey?, inclusive: Bool, to upper: (key: PagingKey, inclusive: Bool)?, keeping: Set<PagingKey>)
        throws -> Int
    {
        var deleted = 0
        var (from, fromInclusive) = (lower, inclusive)
        while true {
            let rows = try keys(from: from, inclusive: fromInclusive, to: upper, limit: 1000)
            let ids = rows.filter { row in row.1.map { !keeping.contains($0) } ?? true }.map(\.0)
            try store.delete(ids, from: soup)
            deleted += ids.count
            guard rows.count == 1000, let last = rows.last?.1 else { return deleted }
            (from, fromInclusive) = (last, false)
        }
    }
}
