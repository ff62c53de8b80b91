import Foundation
import Locking

/// Decrypted pages shared by every connection to one encrypted database in the process,
/// bounded in bytes.
///
/// SQLite's own page cache is per connection, and a connection drops all of it whenever
/// another one commits; every page it then misses costs a decryption and an HMAC-SHA512 (about
/// 9 µs). This cache sits below SQLite, in the VFS: a page read from disk whose IV and HMAC
/// (its last ``CipherFormat/reserveSize`` bytes) equal those of a page this cache holds is
/// served from it, in a fraction of a microsecond, whichever connection read it first.
///
/// Every page still comes from the file on each read, so a page another connection or another
/// process rewrote (with a fresh random IV, so a new HMAC) is never served stale. The cache
/// holds only pages whose HMAC was checked, or that this process encrypted itself, under the
/// same keys; an HMAC-SHA512 under a secret key names exactly one ciphertext of one page number,
/// so a matching reserve serves exactly the plaintext that authenticated reading would give.
/// A page whose body was altered while its reserve was kept is served as the authentic page it
/// was (and reported damaged once it has left the cache); nothing unauthenticated is ever served.
final class PageCache: Sendable {
    /// The memory one cached page takes: its plaintext and reserve, plus the arrays' headers,
    /// the allocator's rounding (Darwin's rounds a page's array up to 4,608 bytes) and the index.
    static let bytesPerPage = 4736

    private struct Slot {
        var number: UInt32
        var reserve: [UInt8]
        var plain: [UInt8]
        var referenced: Bool
    }

    private struct State {
        /// The salt of the keys the held pages were checked with.
        var salt: [UInt8] = []
        var slots: [Slot] = []
        var slotOfPage: [UInt32: Int] = [:]
        /// Pages the cache holds at most.
        var capacity: Int
        /// The clock hand: the next slot considered for eviction.
        var hand = 0
        var hits = 0
        var misses = 0
    }

    private let state: Locked<State>

    /// A cache of at most `bytes` of pages (`0`: none). Memory is taken as pages are read.
    init(bytes: Int) {
        state = Locked(State(capacity: max(0, bytes / Self.bytesPerPage)))
    }

    /// Raises the bound to `bytes` when that is more (another store of the same file asked for more).
    func allow(bytes: Int) {
        state.withLock { $0.capacity = max($0.capacity, max(0, bytes / Self.bytesPerPage)) }
    }

    /// Drops every page (memory pressure, an app going to the background); the bound stays.
    func removeAll() {
        state.withLock { state in state = State(capacity: state.capacity) }
    }

    /// Copies page `number` into `out` when the cache holds it with the reserve `stored` ends
    /// with, under the keys of `salt`; `false` (a miss) otherwise.
    func copy(page number: UInt32, salt: [UInt8], stored: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) -> Bool {
        let reserve = UnsafeRawBufferPointer(rebasing: stored[CipherFormat.ivOffset...])
        return state.withLock { state in
            guard state.salt == salt, let index = state.slotOfPage[number],
                state.slots[index].reserve.withUnsafeBytes({ Self.equal($0, reserve) })
            else {
                state.misses += 1
                return false
            }
            state.slots[index].referenced = true
            state.hits += 1
            state.slots[index].plain.withUnsafeBytes { out.copyMemory(from: $0) }
            return true
        }
    }

    /// Keeps `plain`, the decrypted page `number` whose stored form ends with `stored`'s
    /// reserve, checked (or encrypted) under the keys of `salt`. The plaintext's own reserve is
    /// taken from `stored`, as decryption leaves it.
    func insert(page number: UInt32, salt: [UInt8], stored: UnsafeRawBufferPointer, plain: UnsafeRawBufferPointer) {
        let reserve = UnsafeRawBufferPointer(rebasing: stored[CipherFormat.ivOffset...])
        state.withLock { state in
            guard state.capacity > 0 else { return }
            if state.salt != salt {
                state = State(capacity: state.capacity)
                state.salt = salt
            }
            let index = state.slotOfPage[number] ?? Self.freeSlot(&state, number: number)
            state.slots[index].plain.withUnsafeMutableBytes { target in
                target.copyMemory(from: UnsafeRawBufferPointer(rebasing: plain[..<CipherFormat.ivOffset]))
                UnsafeMutableRawBufferPointer(rebasing: target[CipherFormat.ivOffset...]).copyMemory(from: reserve)
                // Page 1 as decryption gives it: SQLite's header where the file keeps the salt.
                if number == 1 {
                    UnsafeMutableRawBufferPointer(rebasing: target[..<CipherFormat.saltSize]).copyBytes(from: CipherFormat.sqliteHeader)
                }
            }
            state.slots[index].reserve.withUnsafeMutableBytes { $0.copyMemory(from: reserve) }
            state.slots[index].referenced = true
        }
    }

    /// Hits and misses since the cache was made (or emptied, or its keys changed); a cache of
    /// no pages counts every read a miss.
    var statistics: (hits: Int, misses: Int, pages: Int) {
        state.withLock { ($0.hits, $0.misses, $0.slotOfPage.count) }
    }

    /// A slot for page `number`: a new one while under capacity, else the first one the clock
    /// hand finds not referenced since it last passed (the "second chance" policy).
    private static func freeSlot(_ state: inout State, number: UInt32) -> Int {
        if state.slots.count < state.capacity {
            state.slots.append(
                Slot(
                    number: number, reserve: [UInt8](repeating: 0, count: CipherFormat.reserveSize),
                    plain: [UInt8](repeating: 0, count: CipherFormat.pageSize), referenced: false))
            state.slotOfPage[number] = state.slots.count - 1
            return state.slots.count - 1
        }
        while state.slots[state.hand].referenced {
            state.slots[state.hand].referenced = false
            state.hand = (state.hand + 1) % state.slots.count
        }
        let index = state.hand
        state.hand = (state.hand + 1) % state.slots.count
        state.slotOfPage[state.slots[index].number] = nil
        state.slots[index].number = number
        state.slotOfPage[number] = index
        return index
    }

    /// Whether two byte strings are equal (`memcmp`; not constant-time: for public bytes).
    static func equal(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool {
        guard lhs.count == rhs.count else { return false }
        guard let left = lhs.baseAddress, let right = rhs.baseAddress else { return lhs.isEmpty }
        return memcmp(left, right, lhs.count) == 0
    }
}
