import Foundation

/// The constants of SQLCipher 4's default page format, which every encrypted file here uses.
///
/// A page of `pageSize` bytes keeps its last `reserveSize` bytes for the cipher: a random
/// 16-byte IV, then an HMAC-SHA512 of the ciphertext, the IV and the page number (4 bytes,
/// little-endian). Everything before the reserve is AES-256-CBC ciphertext without padding,
/// except the first 16 bytes of page 1, which hold the file's key-derivation salt in the clear
/// (SQLite's `SQLite format 3` header, which they replace, is restored on reading); with
/// ``CipherLayout/plaintextHeader`` the first 32 bytes of page 1 are SQLite's header instead.
package enum CipherFormat {
    /// Bytes per page (SQLCipher's `cipher_page_size` default; SQLite's default too).
    package static let pageSize = 4096
    /// Bytes at the end of every page that SQLite leaves to the cipher (IV and HMAC).
    package static let reserveSize = 80
    /// Bytes of the AES-CBC initialisation vector, first in the reserve.
    package static let ivSize = 16
    /// Bytes of the HMAC-SHA512 that follows the IV.
    package static let hmacSize = 64
    /// Bytes of the key-derivation salt at the start of page 1.
    package static let saltSize = 16
    /// Bytes of the AES key, and of the HMAC key derived from it.
    package static let keySize = 32
    /// SQLCipher 4's default PBKDF2-HMAC-SHA512 iteration count for passphrases.
    package static let defaultKDFIterations = 256_000
    /// The iterations that derive the HMAC key from the encryption key.
    package static let hmacKDFIterations = 2
    /// The byte every salt byte is XORed with to salt the HMAC key's derivation.
    package static let hmacSaltMask: UInt8 = 0x3a
    /// Where the ciphertext of a page ends and the IV begins.
    package static let ivOffset = pageSize - reserveSize
    /// Where the HMAC begins.
    package static let hmacOffset = ivOffset + ivSize
    /// Bytes of SQLite's header left in the clear with ``CipherLayout/plaintextHeader``.
    package static let plaintextHeaderSize = 32
    /// Where SQLite's header keeps the bytes reserved at the end of each page.
    static let reserveByteOffset = 20
    /// Bytes 72 to 91 of SQLite's header: zeros in every plaintext database.
    static let expansionBytes = 72..<92
    /// The bytes of a file's start that tell its layout (``CipherLayout/of(fileStart:)``).
    package static let layoutProbeSize = 92
    /// The first 16 bytes of every plaintext SQLite database.
    package static let sqliteHeader: [UInt8] = Array("SQLite format 3".utf8) + [0]
}

extension CipherFormat {
    /// The first 16 bytes of the database file at `path` when they can be a salt: the file
    /// exists, has them, and does not start with SQLite's plaintext header.
    package static func salt(ofDatabaseAt path: String) -> [UInt8]? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: saltSize), head.count == saltSize else { return nil }
        let salt = Array(head)
        return salt == sqliteHeader ? nil : salt
    }
}
