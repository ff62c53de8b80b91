import FastJSON
import SalesforceREST
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
extension PagingSyncDownTarget {
    /// Runs passes over every page until one sees no shift (at most ``maximumPasses``).
    public func syncDown(_ sync: inout SyncState, context: SyncContext) async throws {
        let specs = try context.store.indexSpecs(ofSoup: sync.soupName)
        for path in [keyField, LocalFields.syncId, LocalFields.local] where !specs.contains(where: { $0.path == path }) {
            throw SyncError.invalidTarget("paging sync: soup \(sync.soupName) needs an index on \(path)")
        }
        for _ in 0..<maximumPasses {
            let shifted = try await pass(&sync, context: context)
            if !shifted { return }
        }
        throw SyncError.invalidSyncState("paging sync: the server's pages shifted during each of \(maximumPasses) passes; run it again")
    }

    /// A paging sync deletes what the server no longer has as it pages: ghost cleanup runs its
    /// passes (writing what changed too) and returns what they deleted.
    public func cleanGhosts(_ sync: SyncState, context: SyncContext) async throws -> Int {
        var pass = sync
        pass.recordsDeleted = 0
        try await syncDown(&pass, context: context)
        return pass.recordsDeleted
    }

    /// One pass over every page. Returns whether pages shifted under it.
    private func pass(_ sync: inout SyncState, context: SyncContext) async throws -> Bool {
        let ranges = PagingRanges(
            store: context.store, soup: sync.soupName, keyField: keyField, syncId: sync.id,
            keepDirty: sync.options.mergeMode.keepsLocalChanges)
        let client = context.client
        var shifted = false
        var previous: PagingKey?
        var index = firstPageIndex
        while true {
            try await context.checkStop()
            let page = try await self.page(index, client: client)
            sync.pagesFetched += 1
            sync.recordsFetched += page.records.count
            if let total = page.totalSize { sync.totalSize = total }
            guard let first = page.records.first?.key, let last = page.records.last?.key else {
                if try await boundaryHolds(after: previous, upTo: nil, pageIndex: index, client: client, ranges: ranges) {
                    await sync.recordsDeleted += try ranges.delete(above: previous, below: nil)
                } else {
                    shifted = true
                }
                break
            }
            if let previous, first <= previous {
                shifted = true // rows inserted before the position: this page repeats some
            } else if try await boundaryHolds(after: previous, upTo: first, pageIndex: index, client: client, ranges: ranges) {
                await sync.recordsDeleted += try ranges.delete(above: previous, below: first)
            } else {
                shifted = true
            }
            await sync.recordsDeleted += try ranges.delete(from: first, through: last, keeping: Set(page.records.map(\.key)))
            try await findOrCreate(page, ranges: ranges, sync: sync, store: context.store)
            if page.records.count < pageSize {
                await sync.recordsDeleted += try ranges.delete(above: last, below: nil)
                break
            }
            previous = max(previous ?? last, last)
            index += 1
            if sync.totalSize > 0 { sync.progress = min(99, sync.recordsFetched * 100 / sync.totalSize) }
            try await context.save(&sync)
        }
        return shifted
    }

    /// Whether local records between `previous` and `upper` (exclusive; unbounded when nil) may
    /// be deleted: there are none, or the page before `pageIndex` still ends at `previous`.
    private func boundaryHolds(
        after previous: PagingKey?, upTo upper: PagingKey?, pageIndex: Int, client: RestClient, ranges: PagingRanges
    ) async throws -> Bool {
        guard let previous, pageIndex > firstPageIndex, try await ranges.hasRecords(above: previous, below: upper) else { return true }
        return try await page(pageIndex - 1, client: client).records.last?.key == previous
    }

    /// Creates the page's records that are missing locally and updates those whose content
    /// changed, after one lookup by key, in one transaction: an entry edited meanwhile is seen
    /// as it is (and kept, in LEAVE_IF_CHANGED). A page with no local match at all (a first
    /// sync) goes to the store's bulk ingest as received, leaving alone any dirty entry that
    /// appeared since in LEAVE_IF_CHANGED. Fields the engine owns are never taken from the page.
    private func findOrCreate(_ page: Page, ranges: PagingRanges, sync: SyncState, store: SmartStore) async throws {
        let records = page.records
        let clean = LocalFields.clean(syncId: sync.id)
        let keepDirty = sync.options.mergeMode.keepsLocalChanges
        let none = try await store.inTransaction { tx in try ranges.entries(withKeys: records.map(\.key), in: tx).isEmpty }
        if none {
            try await store.ingestPage(
                page.body, into: sync.soupName, recordsPath: recordsPath ?? "", idPath: keyField, timestampPath: nil, skipDirty: keepDirty,
                setFields: clean, removeFields: LocalFields.ownedFields)
            return
        }
        let (soup, syncId) = (sync.soupName, sync.id)
        try await store.inTransaction { tx in
            let local = try ranges.entries(withKeys: records.map(\.key), in: tx)
            var writes: [JSONValue] = []
            var duplicates: [Int64] = []
            for (key, record) in records {
                guard case .object(let sent) = record else { continue }
                var members = LocalFields.serverFields(of: sent) // never the server's _soupEntryId or bookkeeping
                let matches = local[key] ?? []
                // Copies of the record go, but never a local edit (LEAVE_IF_CHANGED) or another sync's entry.
                duplicates += matches.dropFirst().filter { entry in
                    !(keepDirty && LocalFields.isDirty(entry)) && entry[LocalFields.syncId] == .int(syncId)
                }.compactMap { $0["_soupEntryId"]?.int64Value }
                if let existing = matches.first {
                    if existing[LocalFields.local]?.boolValue == true && keepDirty { continue }
                    let unchanged = members.allSatisfy { existing[$0.key] == $0.value } && clean.allSatisfy { existing[$0.key] == $0.value }
                    if unchanged { continue }
                    members["_soupEntryId"] = existing["_soupEntryId"]
                }
                members.merge(clean) { $1 }
                writes.append(.object(members))
            }
            if !writes.isEmpty { _ = try tx.upsert(writes, in: soup) }
            if !duplicates.isEmpty { try tx.delete(duplicates, from: soup) }
        }
    }
}
