import FastJSON
import SalesforceWire
import SmartStore

extension SyncManager {
    /// Fetches pages and hands each, as raw bytes, to the store's bulk ingest; the next page is
    /// fetched while the current one is written.
    func runSyncDown(_ sync: inout SyncState, onUpdate: (@Sendable (SyncState) -> Void)?) async throws {
        let target = try targets.syncDownTarget(sync.target)
        if let writer = target as? any StoreWritingSyncDownTarget { return try await writer.run(&sync, manager: self, onUpdate: onUpdate) }
        let client = self.client
        let boundary = sync.maxTimeStamp
        var maxTimeStamp = boundary
        async let first = target.fetch(client: client, maxTimeStamp: boundary, continuation: nil)
        // While the first page is on its way. Before it is written, so a failure leaves the
        // boundary where it was and the next resync reads this window again.
        if boundary > 0 { try await readLateCommits(behind: boundary, of: target, into: &sync) }
        var page = try await first
        sync.totalSize = page.totalSize
        try save(&sync, onUpdate: onUpdate)
        var fetched = 0
        while true {
            try checkStop()
            let (continuation, boundary) = (page.next, sync.maxTimeStamp)
            async let following: SyncDownPage? =
                continuation == nil
                ? nil
                : target.fetch(client: client, maxTimeStamp: boundary, continuation: continuation)
            let result = try ingest(page, of: target, into: &sync, skipUnchanged: false)
            fetched += result.received
            // As the SDK: a page with a record lacking the date does not advance the boundary.
            if result.recordsWithoutTimestamp == 0, let latest = result.maxTimestamp.flatMap(SalesforceTime.parse) {
                maxTimeStamp = max(maxTimeStamp, latest)
            }
            if target.isSortedByModificationDate { sync.maxTimeStamp = maxTimeStamp }
            if sync.totalSize > 0, fetched < sync.totalSize {
                sync.progress = fetched * 100 / sync.totalSize
                try save(&sync, onUpdate: onUpdate)
            }
            guard let next = try await following else { break }
            page = next
        }
        sync.maxTimeStamp = maxTimeStamp
    }

    /// A resync's first pass: the window behind the previous boundary, read again for records
    /// committed late (see ``SyncDownTarget/fetchLateCommits(client:maxTimeStamp:continuation:)``).
    /// Records this sync stored unchanged are skipped; those written count as fetched. The
    /// boundary does not move: these records are older than it.
    private func readLateCommits(behind boundary: Int64, of target: any SyncDownTarget, into sync: inout SyncState) async throws {
        var continuation: String?
        repeat {
            try checkStop()
            guard let page = try await target.fetchLateCommits(client: client, maxTimeStamp: boundary, continuation: continuation) else {
                return
            }
            let result = try ingest(page, of: target, into: &sync, skipUnchanged: true)
            sync.recordsFetched += result.written - result.received
            continuation = page.next
        } while continuation != nil
    }

    /// Writes one page into the sync's soup, clean and marked with the sync's id.
    private func ingest(_ page: SyncDownPage, of target: any SyncDownTarget, into sync: inout SyncState, skipUnchanged: Bool) throws
        -> PageIngestResult
    {
        let result = try store.ingestPage(
            page.body, into: sync.soupName, recordsPath: page.recordsPath, idPath: target.idFieldName,
            timestampPath: target.modificationDateFieldName, skipDirty: sync.options.mergeMode == .leaveIfChanged,
            skipUnchangedField: skipUnchanged ? LocalFields.syncId : nil,
            setFields: LocalFields.clean(syncId: sync.id), removeFields: [LocalFields.lastError])
        sync.pagesFetched += 1
        sync.recordsFetched += result.received
        return result
    }

    /// Removes the sync's records that no longer exist on the server (or no longer match its
    /// target). Only clean records written by this sync are candidates; the soup is read in
    /// pages of 500, so memory does not grow with it. Returns how many were removed.
    ///
    /// The cleanup runs like a sync: refused while its sync runs (and that sync is refused
    /// while it runs), refused once the manager stops, stopped by ``stop()`` between pages
    /// (throwing ``SyncError/stopped``), and waited for by ``isStopped``.
    @discardableResult
    public func cleanResyncGhosts(id: Int64) async throws -> Int {
        guard let sync = try syncStatus(id: id) else { throw SyncError.notFound(String(id)) }
        guard sync.kind == .syncDown else {
            throw SyncError.invalidTarget("Cannot run cleanResyncGhosts:\(id): wrong type:\(sync.kind.rawValue)")
        }
        let target = try targets.syncDownTarget(sync.target)
        // A paging sync's cleanup is a pass of the sync itself, tracked as that sync.
        if let paging = target as? PagingSyncDownTarget { return try await paging.cleanGhosts(syncId: id, manager: self) }
        try begin(id, running: "cleanResyncGhosts")
        defer { finish(id) }
        if let writer = target as? any StoreWritingSyncDownTarget { return try await writer.cleanGhosts(syncId: id, manager: self) }
        let client = self.client
        return try await deleteGhosts(soup: sync.soupName, idFieldName: target.idFieldName, syncId: id) {
            try await target.remoteIds(client: client, localIds: $0)
        }
    }

    /// Deletes the sync's clean records of `soup` whose ids `remote` does not return, asking it
    /// 500 local ids at a time.
    func deleteGhosts(
        soup: String, idFieldName: String, syncId: Int64,
        remote: ([String]) async throws -> Set<String>
    ) async throws -> Int {
        let sql = """
            select {\(soup):_soupEntryId}, {\(soup):\(idFieldName)} from {\(soup)}
            where {\(soup):\(LocalFields.syncId)} = ? and {\(soup):\(LocalFields.local)} = 0 and {\(soup):_soupEntryId} > ?
            order by {\(soup):_soupEntryId}
            """
        var removed = 0
        var after: Int64 = 0
        while true {
            try checkStop()
            let rows = try store.query(.smart(sql, pageSize: 500), arguments: [.int(syncId), .int(after)])
            guard !rows.isEmpty else { break }
            var local: [String: Int64] = [:]
            for row in rows {
                guard let values = row.arrayValue, let entryId = values.first?.int64Value else { continue }
                after = entryId
                if let remoteId = values.count > 1 ? values[1].stringValue : nil { local[remoteId] = entryId }
            }
            let existing = try await remote(Array(local.keys))
            let ghosts = local.filter { !existing.contains($0.key) }.map(\.value)
            try store.delete(ghosts, from: soup)
            removed += ghosts.count
        }
        return removed
    }

    /// Ghost cleanup of the named sync.
    @discardableResult
    public func cleanResyncGhosts(named name: String) async throws -> Int {
        guard let sync = try syncStatus(named: name) else { throw SyncError.notFound(name) }
        return try await cleanResyncGhosts(id: sync.id)
    }
}
