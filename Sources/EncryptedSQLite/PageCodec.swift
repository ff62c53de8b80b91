import Crypto
import CryptoExtras
import Foundation

/// Encrypts and decrypts single pages in SQLCipher 4's format (see ``CipherFormat``).
package struct PageCodec: Sendable {
    /// Why a page could not be decrypted.
    package enum Failure: Error, Equatable {
        /// The HMAC does not match: a wrong key, or the page was altered or damaged.
        case authentication
        /// The cipher library refused the operation.
        case cipher
    }

    /// The keys of the file the pages belong to.
    package let keys: CipherKeys
    /// What page 1 keeps in the clear.
    package let layout: CipherLayout
    /// HMAC-SHA512 already keyed: each page's HMAC starts from a copy (keying hashes two blocks).
    private let keyed: KeyedMAC

    /// A keyed HMAC, a value type held immutably and copied before use. `@unchecked`: CryptoKit
    /// (what `Crypto` is on Apple platforms) does not mark `HMAC` `Sendable` on the oldest SDKs
    /// the package supports.
    private struct KeyedMAC: @unchecked Sendable {
        let mac: HMAC<SHA512>
    }

    /// A codec for pages encrypted with `keys`, page 1 laid out as `layout` says.
    package init(keys: CipherKeys, layout: CipherLayout = .saltHeader) {
        self.keys = keys
        self.layout = layout
        keyed = KeyedMAC(mac: HMAC<SHA512>(key: keys.hmac))
    }

    /// Where a page's ciphertext starts: after the salt (or SQLite's header) on page 1, at 0
    /// elsewhere.
    func dataStart(page number: UInt32) -> Int {
        number == 1 ? layout.page1DataStart : 0
    }

    /// Encrypts the plaintext page `plain` (``CipherFormat/pageSize`` bytes) numbered `number`
    /// into `out`, with `iv`, which must be fresh and random.
    package func encrypt(
        _ plain: UnsafeRawBufferPointer, page number: UInt32, iv ivBytes: ArraySlice<UInt8>, into out: UnsafeMutableRawBufferPointer
    ) throws(Failure) {
        precondition(plain.count == CipherFormat.pageSize && out.count == CipherFormat.pageSize)
        let start = dataStart(page: number)
        let ciphertext: Data
        let iv: AES._CBC.IV
        do {
            iv = try AES._CBC.IV(ivBytes: ivBytes)
            ciphertext = try AES._CBC.encrypt(
                UnsafeRawBufferPointer(rebasing: plain[start..<CipherFormat.ivOffset]), using: keys.encryption, iv: iv, noPadding: true)
        } catch {
            throw .cipher
        }
        guard ciphertext.count == CipherFormat.ivOffset - start else { throw .cipher }
        if number == 1 {
            switch layout {
            case .saltHeader: out.copyBytes(from: keys.salt)
            case .plaintextHeader: out.copyMemory(from: UnsafeRawBufferPointer(rebasing: plain[..<start]))
            }
        }
        UnsafeMutableRawBufferPointer(rebasing: out[start..<CipherFormat.ivOffset]).copyBytes(from: ciphertext)
        var position = CipherFormat.ivOffset
        for byte in iv {
            out[position] = byte
            position += 1
        }
        let code = authenticationCode(UnsafeRawBufferPointer(out), page: number)
        UnsafeMutableRawBufferPointer(rebasing: out[CipherFormat.hmacOffset...]).copyBytes(from: code)
    }

    /// Decrypts the encrypted page `cipher` numbered `number` into `out` after checking its HMAC.
    /// A page of zeros fails like any other (SQLCipher lets it through as zeros; reads past the
    /// end of a file are handled before decryption here, so zeros inside a file are damage).
    package func decrypt(_ cipher: UnsafeRawBufferPointer, page number: UInt32, into out: UnsafeMutableRawBufferPointer) throws(Failure) {
        precondition(cipher.count == CipherFormat.pageSize && out.count == CipherFormat.pageSize)
        let start = dataStart(page: number)
        let code = authenticationCode(cipher, page: number)
        guard Self.constantTimeEqual(code, UnsafeRawBufferPointer(rebasing: cipher[CipherFormat.hmacOffset...])) else {
            throw .authentication
        }
        let plaintext: Data
        do {
            let iv = try AES._CBC.IV(ivBytes: UnsafeRawBufferPointer(rebasing: cipher[CipherFormat.ivOffset..<CipherFormat.hmacOffset]))
            plaintext = try AES._CBC.decrypt(
                UnsafeRawBufferPointer(rebasing: cipher[start..<CipherFormat.ivOffset]), using: keys.encryption, iv: iv, noPadding: true)
        } catch {
            throw .cipher
        }
        guard plaintext.count == CipherFormat.ivOffset - start else { throw .cipher }
        if number == 1 {
            switch layout {
            case .saltHeader: out.copyBytes(from: CipherFormat.sqliteHeader)
            case .plaintextHeader: out.copyMemory(from: UnsafeRawBufferPointer(rebasing: cipher[..<start]))
            }
        }
        UnsafeMutableRawBufferPointer(rebasing: out[start..<CipherFormat.ivOffset]).copyBytes(from: plaintext)
        UnsafeMutableRawBufferPointer(rebasing: out[CipherFormat.ivOffset...]).copyBytes(
            from: UnsafeRawBufferPointer(rebasing: cipher[CipherFormat.ivOffset...]))
    }

    /// HMAC-SHA512 of a page's ciphertext and IV, then its number as 4 little-endian bytes.
    private func authenticationCode(_ page: UnsafeRawBufferPointer, page number: UInt32) -> [UInt8] {
        var mac = keyed.mac
        mac.update(data: UnsafeRawBufferPointer(rebasing: page[dataStart(page: number)..<CipherFormat.hmacOffset]))
        withUnsafeBytes(of: number.littleEndian) { mac.update(data: $0) }
        return Array(mac.finalize())
    }

    /// Compares two byte strings in time that does not depend on where they differ.
    static func constantTimeEqual(_ lhs: [UInt8], _ rhs: UnsafeRawBufferPointer) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }
}
