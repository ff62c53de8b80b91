import Foundation
import Locking
public import SmartStore

#if canImport(Combine)
    public import Combine
#else
    public import OpenCombine
#endif

extension SyncManager {
    /// The records of `soupName` in conflict, in entry order, each with its local, server and
    /// base versions (see ``SyncConflict``).
    public func conflicts(soup soupName: String) async throws -> [SyncConflict] {
        try await Self.conflicts(in: store, soup: soupName)
    }

    /// The records of `soupName` in conflict in `store`, read without a manager (a read-only
    /// store, or one another process syncs, can be inspected).
    public static func conflicts(in store: SmartStore, soup soupName: String) async throws -> [SyncConflict] {
        let ids = try await store.entryIds(withShadow: ConflictShadows.conflict, in: soupName)
        var conflicts: [SyncConflict] = []
        for start in stride(from: 0, to: ids.count, by: 500) {
            let slice = Array(ids[start..<min(ids.count, start + 500)])
            let conflictDocuments = try await store.shadows(ConflictShadows.conflict, of: slice, in: soupName)
            let bases = try await store.shadows(ConflictShadows.base, of: slice, in: soupName)
            for local in try await store.retrieve(slice, from: soupName) {
                guard let entryId = local["_soupEntryId"]?.int64Value, let document = conflictDocuments[entryId] else { continue }
                var shadows = [ConflictShadows.conflict: document]
                shadows[ConflictShadows.base] = bases[entryId]
                if let conflict = ConflictShadows.conflict(soupName: soupName, entryId: entryId, local: local, shadows: shadows) {
                    conflicts.append(conflict)
                }
            }
        }
        return conflicts
    }

    /// Each conflict a sync of this manager finds from now on, as it is recorded.
    public func conflictUpdates() -> AsyncStream<SyncConflict> {
        let (stream, continuation) = AsyncStream<SyncConflict>.makeStream()
        let id = UUID()
        conflictListeners[id] = continuation
        continuation.onTermination = { _ in Task { await self.removeConflictListener(id) } }
        return stream
    }

    /// Each conflict a sync of this manager finds from now on (``conflictUpdates()`` as a
    /// publisher): Combine's on Apple platforms, OpenCombine's elsewhere. It never fails.
    public nonisolated var conflictsPublisher: AnyPublisher<SyncConflict, Never> {
        Deferred {
            // Combine's and OpenCombine's subjects serialise `send`, which may come from any thread.
            nonisolated(unsafe) let subject = PassthroughSubject<SyncConflict, Never>()
            let task = Locked<Task<Void, Never>?>(nil)
            return subject.handleEvents(
                receiveSubscription: { _ in
                    task.withLock {
                        $0 = Task { for await conflict in await self.conflictUpdates() { subject.send(conflict) } }
                    }
                },
                receiveCancel: { task.withLock { $0?.cancel() } })
        }.eraseToAnyPublisher()
    }

    private func removeConflictListener(_ id: UUID) { conflictListeners[id] = nil }

    /// Tells the conflict listeners about conflicts a sync recorded.
    func report(_ conflicts: [SyncConflict]) {
        for conflict in conflicts { for continuation in conflictListeners.values { continuation.yield(conflict) } }
    }
}

extension SyncManager {
    /// Settles a conflict (``SyncConflict``) by keeping the local record, the server's version,
    /// or a merge of your own (see ``ConflictResolution``), in one transaction with its shadows.
    ///
    /// Keeping the local record or a merge leaves it dirty on top of the server's version the
    /// conflict saw (its modification date and base become that version's), so the next sync up
    /// sends it; a record the server deleted is created again. Keeping the server's version
    /// makes the record that version, clean (or deletes it, if the server deleted it).
    ///
    /// - Parameters:
    ///   - entryId: the record's `_soupEntryId`.
    ///   - soupName: its soup.
    ///   - resolution: what to keep.
    ///   - idFieldName: the field holding the server id.
    ///   - modificationDateFieldName: the field holding the server's modification date.
    /// - Throws: ``SyncError/entryNotFound(soup:entryId:)``;
    ///   ``SyncError/noConflict(soup:entryId:)`` when the entry is not in conflict (or a
    ///   merged record names another entry); ``SyncError/invalidMergedRecord(_:)`` for a merged
    ///   record that is not an object or names another server id;
    ///   ``SyncError/invalidSyncState(_:)`` while another process syncs the soup. A sync of the
    ///   soup running in this process is waited for.
    public func resolveConflict(
        entryId: Int64, soup soupName: String, keeping resolution: ConflictResolution, idFieldName: String = "Id",
        modificationDateFieldName: String = "LastModifiedDate"
    ) async throws {
        try await settle(
            entryId: entryId, soup: soupName, keeping: resolution, seen: nil,
            fields: ConflictResolver(idFieldName: idFieldName, modificationDateFieldName: modificationDateFieldName))
    }

    /// Settles `conflict` as the user saw it: like
    /// ``resolveConflict(entryId:soup:keeping:idFieldName:modificationDateFieldName:)``, but
    /// only while the entry is still the ``SyncConflict/local`` it shows (checked in the writing
    /// transaction). An app edit or a sync that wrote the entry since makes it throw
    /// `SmartStoreError.staleEntry`, writing nothing: read the conflicts again and decide
    /// on what they show now. This is the call for a screen that shows a conflict and asks which
    /// side to keep, so a choice never discards an edit the user did not see.
    ///
    /// - Throws: as ``resolveConflict(entryId:soup:keeping:idFieldName:modificationDateFieldName:)``,
    ///   and `SmartStoreError.staleEntry` when the entry changed since the conflict was read.
    public func resolveConflict(
        _ conflict: SyncConflict, keeping resolution: ConflictResolution, idFieldName: String = "Id",
        modificationDateFieldName: String = "LastModifiedDate"
    ) async throws {
        try await settle(
            entryId: conflict.entryId, soup: conflict.soupName, keeping: resolution,
            seen: conflict.local["_soupLastModifiedDate"]?.int64Value,
            fields: ConflictResolver(idFieldName: idFieldName, modificationDateFieldName: modificationDateFieldName))
    }

    /// Settles the conflict of `entryId`; with `seen`, only while the entry's stamp is still it.
    private func settle(
        entryId: Int64, soup soupName: String, keeping resolution: ConflictResolution, seen: Int64?, fields resolver: ConflictResolver
    ) async throws {
        if case .merged(let record) = resolution {
            guard record.objectValue != nil else { throw SyncError.invalidMergedRecord("a merged record is a JSON object of fields") }
            if let id = record["_soupEntryId"], id != .int(entryId) { throw SyncError.noConflict(soup: soupName, entryId: entryId) }
        }
        // After the syncs of the soup this process started before (they could record the conflict again).
        let ticket = await waitForSoups([soupName])
        defer { leaveSoups(ticket) }
        guard let lock = store.tryLock(["soup:\(soupName)"]) else {
            throw SyncError.invalidSyncState("Cannot resolve a conflict while another process syncs soup \(soupName)")
        }
        defer { lock.release() }
        let exists = try await !store.retrieve([entryId], from: soupName).isEmpty
        guard exists else { throw SyncError.entryNotFound(soup: soupName, entryId: entryId) }
        let idFieldName = resolver.idFieldName
        try await store.modify([entryId], in: soupName, shadows: [ConflictShadows.base, ConflictShadows.conflict]) { edit in
            guard let local = edit.entry,
                let conflict = ConflictShadows.conflict(soupName: soupName, entryId: entryId, local: local, shadows: edit.shadows)
            else { throw SyncError.noConflict(soup: soupName, entryId: entryId) }
            if let seen, let current = local["_soupLastModifiedDate"]?.int64Value, current != seen {
                throw SmartStoreError.staleEntry(soup: soupName, id: entryId, read: seen, current: current)
            }
            if case .merged(let record) = resolution, let given = record[idFieldName], given != .null, given != local[idFieldName] {
                throw SyncError.invalidMergedRecord(
                    "the merged record's \(idFieldName) \(given) is not the conflicting record's \(local[idFieldName] ?? .null)")
            }
            edit = resolver.resolved(conflict, keeping: resolution, shadows: edit.shadows)
        }
    }
}
