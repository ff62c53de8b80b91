import Foundation
import Locking

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Named locks shared by every process that opens one store: POSIX byte-range locks
/// (`fcntl(F_SETLK)`) on one file beside it, one byte per name. The operating system releases a
/// process's locks when it dies, however it dies, so a lock never outlives its holder.
///
/// POSIX locks belong to the process, not to a descriptor: a process does not conflict with
/// itself, and closing any descriptor of the file drops all its locks there. So a process opens
/// each lock file once (``shared(path:create:)``) and never closes it, and the locks it holds
/// are also tracked here, so that two holders in one process exclude each other too.
final class LockFile: Sendable {
    private struct State {
        /// The open file; -1 when there is none (in-memory stores): locks then hold within the process.
        var descriptor: Int32
        var writable: Bool
        /// The byte offsets this process holds.
        var held: Set<Int64> = []
    }

    private let state: Locked<State>
    private static let files = Locked([String: LockFile]())

    private init(descriptor: Int32, writable: Bool) {
        state = Locked(State(descriptor: descriptor, writable: writable))
    }

    /// Locks that hold within this process only (an in-memory store's).
    static func local() -> LockFile { LockFile(descriptor: -1, writable: true) }

    /// The process's lock file at `path` (symbolic links resolved), opened on first use and
    /// kept open. `create`: created (mode 0644) when missing and opened for writing, so locks
    /// can be taken (where it cannot be, in a read-only folder, the locks hold within the
    /// process); otherwise opened read-only, for ``isLocked(_:)``, and nil when there is no
    /// file yet: then no process holds a lock there.
    static func shared(path: String, create: Bool) -> LockFile? {
        let key = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
        return files.withLock { files in
            // A store removed and made again has a new lock file: the one kept open here would
            // lock the removed file, which other processes no longer see. (The old descriptor
            // stays open for holders of the old one: closing it would drop their locks.)
            if let file = files[key], !file.isSameFile(as: key) { files[key] = nil }
            if let file = files[key] {
                guard create, !file.state.withLock({ $0.writable }) else { return file }
                let descriptor = open(key, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
                // The read-only descriptor stays open (closing it would drop the process's locks);
                // without a writable one, locks hold within the process only.
                file.state.withLock { $0 = State(descriptor: descriptor >= 0 ? descriptor : -1, writable: true, held: $0.held) }
                return file
            }
            let descriptor = open(key, create ? (O_RDWR | O_CREAT | O_CLOEXEC) : (O_RDONLY | O_CLOEXEC), 0o644)
            guard descriptor >= 0 || create else { return nil }
            let file = LockFile(descriptor: descriptor, writable: create)
            files[key] = file
            return file
        }
    }

    /// Whether this lock file is still the file at `path` (or has no file: in-memory locks,
    /// or a read-only folder).
    private func isSameFile(as path: String) -> Bool {
        let descriptor = state.withLock { $0.descriptor }
        guard descriptor >= 0 else { return true }
        var open = stat()
        var current = stat()
        guard fstat(descriptor, &open) == 0 else { return false }
        guard stat(path, &current) == 0 else { return false }
        return open.st_dev == current.st_dev && open.st_ino == current.st_ino
    }

    /// Takes all `offsets` if no holder, here or in another process, has any of them; takes
    /// none otherwise (and always none on a read-only file).
    func tryLock(_ offsets: [Int64]) -> Bool {
        state.withLock { state in
            guard state.writable, offsets.allSatisfy({ !state.held.contains($0) }) else { return false }
            var taken: [Int64] = []
            for offset in Set(offsets) {
                guard Self.set(F_WRLCK, at: offset, descriptor: state.descriptor) else {
                    for done in taken { _ = Self.set(F_UNLCK, at: done, descriptor: state.descriptor) }
                    return false
                }
                taken.append(offset)
            }
            state.held.formUnion(taken)
            return true
        }
    }

    /// Releases offsets this process holds.
    func unlock(_ offsets: [Int64]) {
        state.withLock { state in
            for offset in Set(offsets) where state.held.remove(offset) != nil {
                _ = Self.set(F_UNLCK, at: offset, descriptor: state.descriptor)
            }
        }
    }

    /// Whether any holder, here or in another live process, has `offset`.
    func isLocked(_ offset: Int64) -> Bool {
        let (mine, descriptor) = state.withLock { ($0.held.contains(offset), $0.descriptor) }
        guard !mine, descriptor >= 0 else { return mine }
        var lock = Self.range(F_WRLCK, at: offset)
        guard fcntl(descriptor, F_GETLK, &lock) == 0 else { return false }
        return lock.l_type != Int16(F_UNLCK)
    }

    private static func set(_ type: Int32, at offset: Int64, descriptor: Int32) -> Bool {
        guard descriptor >= 0 else { return true }
        var lock = range(type, at: offset)
        while true {
            if fcntl(descriptor, F_SETLK, &lock) == 0 { return true }
            guard errno == EINTR else { return false }
        }
    }

    private static func range(_ type: Int32, at offset: Int64) -> flock {
        var lock = flock()
        lock.l_type = Int16(type)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = off_t(offset)
        lock.l_len = 1
        return lock
    }

    /// The byte a lock name takes: FNV-1a of its UTF-8, kept below 2^62 (the same in every
    /// process, unlike `Hasher`).
    static func offset(of name: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return Int64(bitPattern: hash & 0x3fff_ffff_ffff_ffff)
    }
}
