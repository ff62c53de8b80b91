extension SmartStore {
    /// The file beside a store's file that holds its locks: `<path>-locks`.
    public static func lockFilePath(forStoreAt path: String) -> String { path + "-locks" }

    /// Takes every lock in `names`, all or none: nil when a holder in this process or in any
    /// other process that opened the store has one of them.
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
        guard lockFile.tryLock(offsets) else { return nil }
        return StoreLock(names: names, offsets: offsets, file: lockFile)
    }

    /// Whether a holder in this process, or in another live process, has the lock `name`
    /// (see ``tryLock(_:)``). A store opened read-only reads the lock file without creating it.
    public func isLocked(_ name: String) -> Bool {
        lockFile.isLocked(LockFile.offset(of: name))
    }
}
