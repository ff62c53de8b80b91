import Crypto
import CryptoExtras

/// Random IVs drawn from a pool that is refilled 4 KiB at a time from the cryptographic library's
/// generator (BoringSSL's `RAND_bytes` off Apple platforms), instead of one system call per IV.
/// One pool per open file, which SQLite uses from one thread at a time.
package struct RandomPool {
    /// An empty pool, filled on first use.
    package init() {}

    private var bytes: [UInt8] = []
    private var position = 0
    private static let refillBits = 4096 * 8

    /// A fresh random IV.
    package mutating func nextIV() -> ArraySlice<UInt8> {
        if position + CipherFormat.ivSize > bytes.count {
            bytes = SymmetricKey(size: SymmetricKeySize(bitCount: Self.refillBits)).withUnsafeBytes { Array($0) }
            position = 0
        }
        defer { position += CipherFormat.ivSize }
        return bytes[position..<position + CipherFormat.ivSize]
    }
}
