import Crypto
import EncryptedSQLite

/// The key of an encrypted store: a passphrase, or a raw 256-bit key.
///
/// Stores are encrypted in SQLCipher 4's format, so a key means here what it means to
/// SQLCipher's `PRAGMA key`:
///
/// <!-- snippet: Snippets/SmartStoreReference.swift#storeKey -->
/// ```swift
/// let store = try SmartStore(path: path, key: .passphrase("correct horse battery staple"))
/// let fast = try SmartStore(path: other, key: try .raw(keyBytes))   // 32 bytes, no key derivation
/// ```
///
/// A passphrase is stretched with PBKDF2-HMAC-SHA512 over the store's random salt, with
/// SQLCipher 4's 256,000 iterations unless told otherwise: the Mobile SDK opens its stores with
/// ``sdkKDFIterations``. A raw key skips the derivation, so stores open at once; keep it in
/// the Keychain or a protected file (see ``StoreKeyProvider``).
///
/// The description never shows the key.
public struct StoreKey: Sendable, Hashable, CustomStringConvertible {
    let material: KeyMaterial

    /// SQLCipher 4's default PBKDF2 iteration count.
    public static let defaultKDFIterations = 256_000
    /// The iteration count the Salesforce Mobile SDK sets (`PRAGMA kdf_iter = 4000`), to open
    /// stores the SDK made with the SDK's passphrase.
    public static let sdkKDFIterations = 4_000

    /// A passphrase (its UTF-8 bytes), stretched with PBKDF2-HMAC-SHA512.
    ///
    /// - Parameters:
    ///   - passphrase: The passphrase.
    ///   - kdfIterations: PBKDF2's iteration count (SQLCipher's `kdf_iter`), brought into
    ///     1...4,294,967,295.
    public static func passphrase(_ passphrase: String, kdfIterations: Int = defaultKDFIterations) -> StoreKey {
        StoreKey(material: .passphrase(Array(passphrase.utf8), iterations: clamped(kdfIterations)))
    }

    /// A raw 256-bit key, used without derivation (SQLCipher's `x'…'` key).
    ///
    /// - Throws: ``SmartStoreError/invalidKey(_:)`` unless `bytes` holds exactly 32 bytes.
    public static func raw(_ bytes: some Collection<UInt8>) throws -> StoreKey {
        guard bytes.count == 32 else { throw SmartStoreError.invalidKey("A raw store key has 32 bytes, not \(bytes.count)") }
        return StoreKey(material: .raw(Array(bytes)))
    }

    /// A key written as SQLCipher's `PRAGMA key` takes it: `x'` and 64 hex digits for a raw
    /// key, `x'` and 96 hex digits for a raw key followed by the salt of new stores; any other
    /// text is a passphrase.
    public init(sqlcipherKey text: String, kdfIterations: Int = defaultKDFIterations) {
        if let bytes = Self.hexKey(text), bytes.count == 32 {
            material = .raw(bytes)
        } else if let bytes = Self.hexKey(text), bytes.count == 48 {
            material = .rawWithSalt(key: Array(bytes.prefix(32)), salt: Array(bytes.suffix(16)))
        } else {
            material = .passphrase(Array(text.utf8), iterations: Self.clamped(kdfIterations))
        }
    }

    init(material: KeyMaterial) {
        self.material = material
    }

    /// The key as SQLCipher opens a store with a plaintext header
    /// (``StoreOptions/plaintextHeader``): page 1 has no room for the salt there, so it goes
    /// with the key. A raw key's salt is derived from the key (HMAC-SHA256 of a fixed label,
    /// its first 16 bytes: a random key needs no salt of its own); a key with a salt keeps it.
    ///
    /// - Throws: ``SmartStoreError/invalidKey(_:)`` for a passphrase, whose salt must be random
    ///   and kept in the file.
    public func withPlaintextHeaderSalt() throws(SmartStoreError) -> StoreKey {
        switch material {
        case .rawWithSalt: return self
        case .raw(let key):
            let label = Array("msync plaintext-header salt".utf8)
            let salt = Array(HMAC<SHA256>.authenticationCode(for: label, using: SymmetricKey(data: key)).prefix(16))
            return StoreKey(material: .rawWithSalt(key: key, salt: salt))
        case .passphrase:
            throw .invalidKey("A store with a plaintext header needs a raw key (the salt goes with the key), not a passphrase")
        }
    }

    /// The key as SQLCipher's `PRAGMA key` takes it: `x'` and 64 hex digits for a raw key, 96
    /// with its salt; nil for a passphrase (give SQLCipher the passphrase itself). Shows the key:
    /// for opening a store in SQLCipher's own tools.
    public var sqlcipherKeyText: String? {
        switch material {
        case .passphrase: nil
        case .raw(let key): "x'" + Self.hex(key) + "'"
        case .rawWithSalt(let key, let salt): "x'" + Self.hex(key + salt) + "'"
        }
    }

    /// `bytes` in lowercase hex, two digits each (keys, key files, notification names).
    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        String(bytes.flatMap { [hexDigits[Int($0 >> 4)], hexDigits[Int($0 & 0x0f)]] })
    }

    private static let hexDigits = Array("0123456789abcdef")

    /// Says which kind of key this is, never the key.
    public var description: String {
        switch material {
        case .passphrase(_, let iterations): "StoreKey(passphrase, \(iterations) PBKDF2 iterations)"
        case .raw: "StoreKey(raw)"
        case .rawWithSalt: "StoreKey(raw, with salt)"
        }
    }

    /// An iteration count PBKDF2 takes: 1...4,294,967,295.
    private static func clamped(_ iterations: Int) -> Int {
        min(max(1, iterations), Int(UInt32.max))
    }

    /// The bytes of `x'…'`, or `nil` when the text is not that form.
    private static func hexKey(_ text: String) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count >= 3, characters[0] | 0x20 == UInt8(ascii: "x"), characters[1] == UInt8(ascii: "'"),
            characters[characters.count - 1] == UInt8(ascii: "'")
        else { return nil }
        let digits = characters[2..<(characters.count - 1)]
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        var iterator = digits.makeIterator()
        while let high = iterator.next(), let low = iterator.next() {
            guard let high = Self.hexValue(high), let low = Self.hexValue(low) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func hexValue(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension StoreKey: CustomReflectable {
    /// No children: `dump` and debuggers do not show the key either.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
