import Locking

/// The key of one registered database path, the keys derived from it per salt, and the last
/// failure the VFS met on its files. Shared by every connection to the path.
final class CipherRegistration: Sendable {
    /// What the keys derive from.
    let material: KeyMaterial
    /// What page 1 keeps in the clear.
    let layout: CipherLayout
    /// Decrypted pages of the database and its log, shared by every connection.
    let pages: PageCache
    private let state: Locked<State>

    private struct State {
        var derived: [[UInt8]: CipherKeys] = [:]
        var failure: CipherFailure?
        let newFileSalt: [UInt8]
    }

    private struct LogPage: Sendable {
        let number: UInt32
        let salt: [UInt8]
        let plain: [UInt8]
        let stored: [UInt8]
    }

    private let lastLogPage = Locked<LogPage?>(nil)

    init(material: KeyMaterial, layout: CipherLayout, pageCacheBytes: Int) {
        self.material = material
        self.layout = layout
        pages = PageCache(bytes: pageCacheBytes)
        var generator = SystemRandomNumberGenerator()
        let salt = material.fixedSalt ?? (0..<CipherFormat.saltSize).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        state = Locked(State(newFileSalt: salt))
    }

    /// The salt of a database file that does not exist yet.
    var newFileSalt: [UInt8] { state.withLock { $0.newFileSalt } }

    /// The keys for a file with `salt`, derived once per salt.
    func keys(salt: [UInt8]) throws -> CipherKeys {
        if let keys = state.withLock({ $0.derived[salt] }) { return keys }
        // Derived outside the lock: PBKDF2 takes a while, and two connections deriving the
        // same salt at once only repeat work.
        let keys = try material.derive(salt: salt)
        state.withLock { state in
            state.derived[salt] = keys
        }
        return keys
    }

    /// Remembers the page last read from the log, decrypted (`plain`) and as stored: a
    /// checkpoint writes it to the database next, and a page with the same number and content
    /// is stored the same way (SQLCipher copies it without decrypting).
    func rememberLogPage(_ number: UInt32, salt: [UInt8], plain: UnsafeRawBufferPointer, stored: UnsafeRawBufferPointer) {
        let memo = LogPage(number: number, salt: salt, plain: Array(plain), stored: Array(stored))
        lastLogPage.withLock { $0 = memo }
    }

    /// The stored form of page `number` when its plaintext is the page last read from the log,
    /// encrypted with the keys of `salt`.
    func storedCopy(ofPage number: UInt32, salt: [UInt8], plain: UnsafeRawBufferPointer) -> [UInt8]? {
        lastLogPage.withLock { memo in
            guard let page = memo, page.number == number, page.salt == salt,
                page.plain.withUnsafeBytes({ PageCache.equal($0, plain) })
            else { return nil }
            return page.stored
        }
    }

    /// Records why an operation failed.
    func record(_ failure: CipherFailure) {
        state.withLock { $0.failure = failure }
    }

    /// The last failure, which is forgotten.
    func takeFailure() -> CipherFailure? {
        state.withLock { state in
            defer { state.failure = nil }
            return state.failure
        }
    }
}
