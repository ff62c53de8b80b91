import Locking

/// Locks taken with ``SmartStore/tryLock(_:)``: held until ``release()``, or until the value
/// goes away, or until the process ends.
public final class StoreLock: Sendable {
    /// The names of the locks held.
    public let names: [String]
    private let offsets: [Int64]
    private let file: LockFile
    private let released = Locked(false)

    init(names: [String], offsets: [Int64], file: LockFile) {
        self.names = names
        self.offsets = offsets
        self.file = file
    }

    /// Releases the locks (once; later calls do nothing).
    public func release() {
        guard
            !released.withLock({ flag in
                defer { flag = true }
                return flag
            })
        else { return }
        file.unlock(offsets)
    }

    deinit { release() }
}
