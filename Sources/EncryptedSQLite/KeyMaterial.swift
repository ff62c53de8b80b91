import Crypto
import CryptoExtras

/// What an encrypted file's keys derive from: SQLCipher's three forms of `PRAGMA key`.
package enum KeyMaterial: Sendable, Hashable {
    /// A passphrase, stretched with PBKDF2-HMAC-SHA512 over the file's salt.
    case passphrase([UInt8], iterations: Int)
    /// A raw 32-byte key (`x'64 hex digits'`), used as is.
    case raw([UInt8])
    /// A raw 32-byte key and the 16-byte salt to write into new files (`x'96 hex digits'`).
    case rawWithSalt(key: [UInt8], salt: [UInt8])

    /// The salt this material dictates for a new file, if any.
    var fixedSalt: [UInt8]? {
        if case .rawWithSalt(_, let salt) = self { return salt }
        return nil
    }

    /// The encryption and HMAC keys for a file whose salt is `salt` (SQLCipher 4's derivation).
    package func derive(salt: [UInt8]) throws -> CipherKeys {
        let encryption: SymmetricKey
        switch self {
        case .passphrase(let bytes, let iterations):
            // PBKDF2 counts rounds in 32 bits (swift-crypto converts with a trapping UInt32()).
            guard (1...Int(UInt32.max)).contains(iterations) else { throw CipherVFSError.invalidIterations(iterations) }
            encryption = try KDF.Insecure.PBKDF2.deriveKey(
                from: bytes, salt: salt, using: .sha512, outputByteCount: CipherFormat.keySize,
                unsafeUncheckedRounds: iterations)
        case .raw(let key), .rawWithSalt(let key, _):
            encryption = SymmetricKey(data: key)
        }
        let hmacSalt = salt.map { $0 ^ CipherFormat.hmacSaltMask }
        let hmac = try encryption.withUnsafeBytes { keyBytes in
            try KDF.Insecure.PBKDF2.deriveKey(
                from: keyBytes, salt: hmacSalt, using: .sha512, outputByteCount: CipherFormat.keySize,
                unsafeUncheckedRounds: CipherFormat.hmacKDFIterations)
        }
        return CipherKeys(encryption: encryption, hmac: hmac, salt: salt)
    }
}

/// The two keys of one encrypted file, and the salt they were derived with.
///
/// `@unchecked`: `SymmetricKey` is immutable and `Sendable` in swift-crypto, but on Apple
/// platforms `Crypto` is CryptoKit, whose `Sendable` markings trail swift-crypto's on the
/// oldest SDKs the package supports.
package struct CipherKeys: @unchecked Sendable {
    /// The AES-256 key.
    let encryption: SymmetricKey

    /// The AES-256 key's bytes, for other uses of the same key derivation (the key-value store).
    package var encryptionKeyBytes: [UInt8] { encryption.withUnsafeBytes { Array($0) } }
    /// The HMAC-SHA512 key.
    let hmac: SymmetricKey
    /// The file's salt (the first 16 bytes of page 1).
    let salt: [UInt8]
}
