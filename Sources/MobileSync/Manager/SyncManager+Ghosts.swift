import SmartStore

extension SyncManager {
    /// Removes the sync's records that no longer exist on the server (or no longer match its
    /// target), through its target's ``SyncDownTarget/cleanGhosts(_:context:)``. Only clean
    /// records written by this sync are candidates; the soup is read in pages, so memory does
    /// not grow with it. Returns how many were removed.
    ///
    /// The cleanup runs like a sync: refused while its sync runs (and that sync is refused
    /// while it runs), refused once the manager stops, stopped by ``stop()`` between pages
    /// (throwing ``SyncError/stopped``), and waited for by ``isStopped``. Like a sync, it waits
    /// for other processes' syncs of its soups (``otherProcesses``). It leaves the sync's
    /// state as its last run left it.
    @discardableResult
    public func cleanResyncGhosts(id: Int64) async throws -> Int {
        guard let sync = try syncStatus(id: id) else { throw SyncError.notFound(String(id)) }
        guard sync.kind == .syncDown else {
            throw SyncError.invalidTarget("Cannot run cleanResyncGhosts:\(id): wrong type:\(sync.kind.rawValue)")
        }
        let target = try targets.syncDownTarget(sync.target)
        try begin(id, running: "cleanResyncGhosts")
        defer { finish(id) }
        let soups = [sync.soupName] + target.additionalSoupNames
        let ticket = await waitForSoups(soups)
        defer { leaveSoups(ticket) }
        let locks: [StoreLock]
        switch try await processLocks(syncId: nil, soups: soups, label: "soup \(soups.joined(separator: ", "))", waiting: {}) {
        case .acquired(let taken): locks = taken
        case .stopped: throw SyncError.stopped
        case .busy(let message, _): throw SyncError.runningInAnotherProcess(message)
        }
        defer { for lock in locks { lock.release() } }
        try checkStop()
        return try await target.cleanGhosts(sync, context: SyncContext(manager: self, onUpdate: nil, isCleanup: true))
    }

    /// Ghost cleanup of the named sync.
    @discardableResult
    public func cleanResyncGhosts(named name: String) async throws -> Int {
        guard let sync = try syncStatus(named: name) else { throw SyncError.notFound(name) }
        return try await cleanResyncGhosts(id: sync.id)
    }
}
