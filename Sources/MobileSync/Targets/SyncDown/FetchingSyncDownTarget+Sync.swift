import FastJSON
import SalesforceWire
import SmartStore

extension FetchingSyncDownTarget {
    /// Fetches pages and hands each, as raw bytes, to the store's bulk ingest; the next page is
    /// fetched while the current one is written.
    public func syncDown(_ sync: inout SyncState, context: SyncContext) async throws {
        try await fetchPages(&sync, context: context)
    }

    /// The sync down of ``syncDown(_:context:)``, for targets that prepare themselves first.
    func fetchPages(_ sync: inout SyncState, context: SyncContext) async throws {
        let client = context.client
        let boundary = sync.maxTimeStamp
        var maxTimeStamp = boundary
        async let first = fetch(client: client, maxTimeStamp: boundary, continuation: nil)
        // While the first page is on its way. Before it is written, so a failure leaves the
        // boundary where it was and the next resync reads this window again.
        if boundary > 0 { try await readLateCommits(behind: boundary, into: &sync, context: context) }
        var page = try await first
        sync.totalSize = page.totalSize
        try await context.save(&sync)
        var fetched = 0
        while true {
            try await context.checkStop()
            let (continuation, boundary) = (page.next, sync.maxTimeStamp)
            async let following: SyncDownPage? =
                continuation == nil
                ? nil
                : fetch(client: client, maxTimeStamp: boundary, continuation: continuation)
            let result = try await ingest(page, into: &sync, context: context, skipUnchanged: false)
            fetched += result.received
            // As the SDK: a page with a record lacking the date does not advance the boundary.
            if result.recordsWithoutTimestamp == 0, let latest = result.maxTimestamp.flatMap(SalesforceTime.parse) {
                maxTimeStamp = max(maxTimeStamp, latest)
            }
            if isSortedByModificationDate { sync.maxTimeStamp = maxTimeStamp }
            if sync.totalSize > 0, fetched < sync.totalSize {
                sync.progress = fetched * 100 / sync.totalSize
                try await context.save(&sync)
            }
            guard let next = try await following else { break }
            page = next
        }
        sync.maxTimeStamp = maxTimeStamp
    }

    /// A resync's first pass: the window behind the previous boundary, read again for records
    /// committed late (see ``FetchingSyncDownTarget/fetchLateCommits(client:maxTimeStamp:continuation:)``).
    /// Records this sync stored unchanged are skipped; those written count as fetched. The
    /// boundary does not move: these records are older than it.
    private func readLateCommits(behind boundary: Int64, into sync: inout SyncState, context: SyncContext) async throws {
        var continuation: String?
        repeat {
            try await context.checkStop()
            guard let page = try await fetchLateCommits(client: context.client, maxTimeStamp: boundary, continuation: continuation) else {
                return
            }
            let result = try await ingest(page, into: &sync, context: context, skipUnchanged: true)
            sync.recordsFetched += result.written - result.received
            continuation = page.next
        } while continuation != nil
    }

    /// Writes one page into the sync's soup, clean and marked with the sync's id; in
    /// MERGE_FIELDS mode, then merges the page's records dirty here (see ``SyncDownMerge``).
    private func ingest(_ page: SyncDownPage, into sync: inout SyncState, context: SyncContext, skipUnchanged: Bool) async throws
        -> PageIngestResult
    {
        let result = try await context.store.ingestPage(
            page.body, into: sync.soupName, recordsPath: page.recordsPath, idPath: idFieldName,
            timestampPath: modificationDateFieldName, skipDirty: sync.options.mergeMode.keepsLocalChanges,
            skipUnchangedField: skipUnchanged ? LocalFields.syncId : nil, keepNewer: true,
            setFields: LocalFields.clean(syncId: sync.id), removeFields: LocalFields.ownedFields)
        sync.pagesFetched += 1
        sync.recordsFetched += result.received
        if sync.options.mergeMode == .mergeFields {
            let merge = SyncDownMerge(
                store: context.store, soup: sync.soupName, idFieldName: idFieldName, modificationDateFieldName: modificationDateFieldName,
                syncId: sync.id)
            let conflicts = try await merge.merge(try SyncDownMerge.records(in: page.body, at: page.recordsPath))
            sync.conflictCount += conflicts.count
            await context.report(conflicts)
        }
        return result
    }
}
