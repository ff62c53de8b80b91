extension SmartStore {
    /// The file beside a store's file that holds its locks: `<path>-locks`.
    public static func lockFilePath(forStoreAt path: String) -> String { path + "-locks" }

    /// Takes every lock in `names`, all or none: nil when a holder in this process or in any
    /// other process that opened the store has one of them (and always for a store opened
    /// read-only).
    ///
    /// Locks are named, advisory and exclusive; any string names one. They live in a file
    /// beside the store (``lockFilePath(forStoreAt:)``), so an app and its extensions sharing
    /// a store in an app-group container exclude each other, and the operating system releases
    /// them when the holding process dies, however it dies. An in-memory store's locks hold
    /// within the process. Mobile Sync takes `soup:<name>` for the soups a sync writes and
    /// `sync:<id>` for the sync itself.
    ///
    /// Taking a lock never waits: poll, or give up. Release it with ``StoreLock/release()``
    /// (or by letting the lock go). On Apple platforms, release locks before the app is
    /// suspended: the system ends a suspended app that holds a file lock in a shared container.
    public func tryLock(_ names: [String]) -> StoreLock? {
        let offsets = names.map(LockFile.offset(of:))
        guard let file = lockFile(forTaking: true), file.tryLock(offsets) else { return nil }
        return StoreLock(names: names, offsets: offsets, file: file)
    }

    /// Whether a holder in this process, or in another live process, has the lock `name`
    /// (see ``tryLock(_:)``). This never creates the lock file.
    public func isLocked(_ name: String) -> Bool {
        lockFile(forTaking: false)?.isLocked(LockFile.offset(of: name)) ?? false
    }

    /// The store's lock file, created when a lock is first taken (so a store never locked
    /// leaves no file behind); nil when there is none yet, or the store is read-only and
    /// `taking` (it takes no locks).
    func lockFile(forTaking taking: Bool) -> LockFile? {
        if let memoryLocks { return memoryLocks }
        guard let path, !(taking && isReadOnly) else { return nil }
        return LockFile.shared(path: Self.lockFilePath(forStoreAt: path), create: taking)
    }
}
