import SmartStore

extension SyncManager {
    /// What a sync does when another process (an app's extension, a second `msync`) is running
    /// it or syncing one of its soups. Within a process, syncs of one soup queue (see
    /// ``SyncManager``); across processes they exclude each other through the store's locks
    /// (`SmartStore.tryLock(_:)`), which the operating system releases when a process dies.
    public enum OtherProcessPolicy: Sendable, Equatable {
        /// Wait, at most `timeout`, then throw ``SyncError/runningInAnotherProcess(_:)``. While
        /// another process runs one of its soups (not the sync itself, whose state that process
        /// owns), the sync's state is WAITING. A stop or a cancelled task ends the wait STOPPED.
        case wait(timeout: Duration)
        /// Throw ``SyncError/runningInAnotherProcess(_:)`` at once.
        case fail

        /// The default: waiting a minute. An app and its extension syncing the same soups is
        /// routine and each sync is short, so a sync that failed only because the other was
        /// running would push every app into a retry loop; the bound keeps a stuck process from
        /// holding the others forever.
        public static let `default` = OtherProcessPolicy.wait(timeout: .seconds(60))
    }

    /// How waiting for the locks of other processes ended.
    enum ProcessLocks {
        /// All locks taken: the sync's own (when asked for) and its soups'.
        case acquired([StoreLock])
        /// A stop or a cancellation ended the wait; `own` is the sync's lock if it was taken
        /// (its holder may write the sync's state, then releases it).
        case stopped(own: StoreLock?)
        /// Not waited for, or for too long (`message` names what is busy); `own` as above.
        case busy(String, own: StoreLock?)
    }

    /// Polls for the locks of a sync (`sync:<id>`, unless `syncId` is nil for a ghost cleanup)
    /// and of the soups it writes (`soup:<name>`), as ``otherProcesses`` says. `waiting` is
    /// called once, when the sync's own lock is held but a soup's is not.
    func processLocks(syncId: Int64?, soups: [String], label: String, waiting: () async throws -> Void) async throws -> ProcessLocks {
        let soupNames = Set(soups).sorted().map { "soup:\($0)" }
        let syncName = syncId.map { "sync:\($0)" }
        let deadline: ContinuousClock.Instant? =
            switch otherProcesses {
            case .wait(let timeout): .now + timeout
            case .fail: nil
            }
        var own: StoreLock?
        var announced = false
        while true {
            if own == nil, let syncName { own = store.tryLock([syncName]) }
            if own != nil || syncName == nil, let soupsLock = store.tryLock(soupNames) {
                return .acquired([own, soupsLock].compactMap { $0 })
            }
            if own != nil, !announced {
                announced = true
                try await waiting()
            }
            if state != .acceptingSyncs || Task.isCancelled { return .stopped(own: own) }
            guard let deadline, ContinuousClock.now < deadline else {
                let busy = ([syncName].compactMap { $0 } + soupNames).filter { name in
                    own?.names.contains(name) != true && store.isLocked(name)
                }
                return .busy("\(label) (\(busy.joined(separator: ", ")))", own: own)
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }
}
