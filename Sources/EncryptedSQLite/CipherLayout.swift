import Foundation

/// What page 1 of an encrypted file keeps in the clear.
package enum CipherLayout: Sendable, Hashable {
    /// SQLCipher 4's default: the key-derivation salt in the first 16 bytes; the rest of the
    /// file is ciphertext, so nothing tells it from random bytes.
    case saltHeader
    /// SQLite's 32-byte header in the clear (SQLCipher's `cipher_plaintext_header_size = 32`),
    /// the salt kept with the key (``KeyMaterial/rawWithSalt(key:salt:)``): iOS lets a suspended
    /// app keep a lock on a database in a shared container only when it sees that header. It
    /// reveals that the file is SQLite, its page size and its counters, nothing of its content.
    case plaintextHeader

    /// Where page 1's ciphertext starts.
    var page1DataStart: Int {
        switch self {
        case .saltHeader: CipherFormat.saltSize
        case .plaintextHeader: CipherFormat.plaintextHeaderSize
        }
    }

    /// What the first bytes of a database file (at least ``CipherFormat/layoutProbeSize`` of
    /// them) say of its layout: `nil` for a plaintext SQLite database, the layout of an
    /// encrypted one otherwise. SQLite's header is in the clear in two cases: a plaintext
    /// database, whose bytes 72 to 91 are zeros (SQLite reserves them for expansion), and one
    /// encrypted with a plaintext header, where those bytes are ciphertext (all zeros with odds of
    /// 2^-160) and pages keep the cipher's reserved bytes. A plaintext copy of an encrypted store
    /// (`VACUUM INTO`) keeps the reserved bytes, but not the ciphertext.
    package static func of(fileStart head: [UInt8]) -> CipherLayout? {
        guard head.starts(with: CipherFormat.sqliteHeader) else { return .saltHeader }
        guard head.count >= CipherFormat.layoutProbeSize, Int(head[CipherFormat.reserveByteOffset]) >= CipherFormat.reserveSize
        else { return nil }
        let expansion = head[CipherFormat.expansionBytes]
        return expansion.contains { $0 != 0 } ? .plaintextHeader : nil
    }

    /// The layout of the encrypted database file at `path`; nil when there is no file, or too
    /// little of one to tell, or a plaintext SQLite database.
    package static func ofDatabase(at path: String) -> CipherLayout? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: CipherFormat.layoutProbeSize), head.count >= CipherFormat.plaintextHeaderSize
        else { return nil }
        return of(fileStart: Array(head))
    }
}
