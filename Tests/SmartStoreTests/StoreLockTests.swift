import Foundation
import TestSupport
import Testing

@testable import SmartStore

/// Named store locks: exclusive within a process and across processes, released when the
/// holder lets go or dies. The other process is a Python one taking POSIX locks with
/// `fcntl.lockf` on the same byte: the operating system's semantics, not ours, are checked.
@Suite struct StoreLockTests {
    @Test func allOrNoneWithinAProcess() throws {
        let directory = TemporaryDirectory()
        let store = try SmartStore(path: directory.path("store.sqlite"))
        // No lock taken yet: no lock file, and nothing is locked.
        #expect(!store.isLocked("soup:a"))
        #expect(!FileManager.default.fileExists(atPath: SmartStore.lockFilePath(forStoreAt: directory.path("store.sqlite"))))
        let first = try #require(store.tryLock(["soup:a", "sync:1"]))
        #expect(store.isLocked("soup:a") && store.isLocked("sync:1") && !store.isLocked("soup:b"))
        // One held name is enough to refuse the lot, and nothing of the lot is taken.
        #expect(store.tryLock(["soup:b", "soup:a"]) == nil)
        #expect(!store.isLocked("soup:b"))
        // Another instance on the same file shares the locks.
        let other = try SmartStore(path: directory.path("store.sqlite"))
        #expect(other.tryLock(["sync:1"]) == nil && other.isLocked("soup:a"))
        first.release()
        first.release()
        #expect(!store.isLocked("soup:a"))
        let second = try #require(other.tryLock(["soup:a"]))
        #expect(store.isLocked("soup:a"))
        second.release()
        // A lock let go without release() is released.
        do { _ = store.tryLock(["soup:c"]) }
        #expect(!store.isLocked("soup:c"))
        #expect(FileManager.default.fileExists(atPath: SmartStore.lockFilePath(forStoreAt: directory.path("store.sqlite"))))
    }

    /// A store removed and made again at the same path locks its new lock file: a lock still
    /// held on the removed store's file neither blocks it nor hides it from other processes.
    @Test func aStoreMadeAgainLocksItsNewFile() throws {
        let directory = TemporaryDirectory()
        let path = directory.path("store.sqlite")
        let old = try SmartStore(path: path)
        let held = try #require(old.tryLock(["soup:a"]))
        try old.close()
        for suffix in ["", "-wal", "-shm", "-locks"] where FileManager.default.fileExists(atPath: path + suffix) {
            try FileManager.default.removeItem(atPath: path + suffix)
        }
        let again = try SmartStore(path: path)
        #expect(!again.isLocked("soup:a"))
        let fresh = try #require(again.tryLock(["soup:a"]))
        #expect(FileManager.default.fileExists(atPath: SmartStore.lockFilePath(forStoreAt: path)))
        fresh.release()
        held.release()
    }

    @Test func inMemoryStoresHaveTheirOwnLocks() throws {
        let (one, two) = (try SmartStore(), try SmartStore())
        let held = try #require(one.tryLock(["soup:a"]))
        #expect(one.tryLock(["soup:a"]) == nil && two.tryLock(["soup:a"]) != nil)
        held.release()
    }

    @Test func anotherProcessExcludesAndItsDeathReleases() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path("store.sqlite")
        let store = try SmartStore(path: path)
        let lockFile = SmartStore.lockFilePath(forStoreAt: path)
        let holder = try await LockHolder(path: lockFile, offsets: [LockFile.offset(of: "soup:accounts")])
        #expect(store.isLocked("soup:accounts") && !store.isLocked("soup:contacts"))
        #expect(store.tryLock(["soup:contacts", "soup:accounts"]) == nil)
        // A read-only opener sees it too.
        #expect(try SmartStore(readOnlyAt: path).isLocked("soup:accounts"))
        // Killed: the operating system releases its lock.
        holder.kill()
        #expect(!store.isLocked("soup:accounts"))
        let mine = try #require(store.tryLock(["soup:accounts"]))
        // Now the other process is refused.
        await #expect(throws: LockHolder.LockHolderError.self) {
            _ = try await LockHolder(path: lockFile, offsets: [LockFile.offset(of: "soup:accounts")])
        }
        mine.release()
        let again = try await LockHolder(path: lockFile, offsets: [LockFile.offset(of: "soup:accounts")])
        again.release()
    }
}
