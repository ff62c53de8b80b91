import FastJSON
import SmartStore

extension SyncManager {
    /// Settles a record whose create was sent but whose outcome a sync up could not tell: its
    /// `__last_error__` holds a `CREATE_OUTCOME_UNKNOWN` error naming the server records that
    /// could be it (until settled, sync ups leave it alone rather than guess), or a
    /// `CREATE_OUTCOME_PENDING` one (no such record yet, but it may still land: sync ups hold it
    /// back until ``lostCreateWait`` has passed).
    ///
    /// - Parameters:
    ///   - entryId: the record's `_soupEntryId`.
    ///   - soupName: the soup holding the record.
    ///   - serverId: the id of the server record that is this one: the record takes it and
    ///     stays dirty, as an update, so its current values go up on the next sync up (without
    ///     the server's modification date, so unconditionally even in LEAVE_IF_CHANGED mode).
    ///     `nil` forgets the attempt: the next sync up creates the record.
    ///   - idFieldName: the field holding the server id.
    /// - Throws: ``SyncError/entryNotFound(soup:entryId:)``, ``SyncError/noCreateAttempt(soup:entryId:)``;
    ///   ``SyncError/invalidSyncState(_:)`` while a sync up of the soup runs (the attempt may be
    ///   on the wire) or when another entry holds `serverId`.
    ///
    /// Synchronous on purpose: the checks and the write happen with no suspension between them,
    /// so no sync up of the soup can begin in the middle.
    public func resolveCreateAttempt(entryId: Int64, soupName: String, adopting serverId: String?, idFieldName: String = "Id") throws {
        guard var record = try store.retrieve([entryId], from: soupName).first else {
            throw SyncError.entryNotFound(soup: soupName, entryId: entryId)
        }
        guard CreateAttempt.isRecorded(in: record) else { throw SyncError.noCreateAttempt(soup: soupName, entryId: entryId) }
        if syncUpSoups.values.contains(soupName) {
            throw SyncError.invalidSyncState("Cannot settle a create attempt while a sync up of soup \(soupName) runs")
        }
        // A sync of the soup in another process may have the attempt on the wire.
        guard let lock = store.tryLock(["soup:\(soupName)"]) else {
            throw SyncError.invalidSyncState("Cannot settle a create attempt while another process syncs soup \(soupName)")
        }
        defer { lock.release() }
        if let serverId, let holder = try store.lookupSoupEntryId(soup: soupName, path: idFieldName, value: .string(serverId)),
            holder != entryId
        {
            throw SyncError.invalidSyncState("\(serverId) is held by entry \(holder) of soup \(soupName)")
        }
        record[LocalFields.createAttempt] = nil
        record[LocalFields.lastError] = nil
        if let serverId {
            record[idFieldName] = .string(serverId)
            record[LocalFields.locallyCreated] = false
            record[LocalFields.locallyUpdated] = true
            record[LocalFields.local] = true
        }
        try store.upsert(record, in: soupName)
    }
}
