/// An 18-character Salesforce record id: a 3-character key prefix, 12 more characters, and a
/// 3-character case-safe checksum suffix computed from the first 15.
public struct SalesforceId: Sendable, Hashable, CustomStringConvertible {
    /// The 18-character form.
    public let value: String

    private static let suffixAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ012345".utf8)
    private static let bodyAlphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

    /// Parses a 15- or 18-character id; an 18-character one must carry the right checksum.
    ///
    /// - Returns: `nil` for anything else (the server answers `MALFORMED_ID`).
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 15 || bytes.count == 18, bytes.allSatisfy(Self.isAlphanumeric) else { return nil }
        var full = Array(bytes.prefix(15))
        full += Self.suffix(of: full)
        if bytes.count == 18 && full != bytes { return nil }
        value = String(decoding: full, as: UTF8.self)
    }

    /// An id made of a key prefix and a sequence number (`001` + 12 characters + checksum).
    @_spi(MSyncInternal) public init(prefix: String, sequence: UInt64) {
        // Three fixed characters after the prefix mimic a pod/instance marker ("000" is fine).
        var bytes = Array(prefix.utf8) + Array("000".utf8)
        var digits = [UInt8](repeating: 0, count: 9)
        var remaining = sequence
        for index in stride(from: 8, through: 0, by: -1) {
            digits[index] = Self.bodyAlphabet[Int(remaining % 62)]
            remaining /= 62
        }
        bytes += digits
        bytes += Self.suffix(of: bytes)
        value = String(decoding: bytes, as: UTF8.self)
    }

    /// The 15-character case-sensitive form.
    public var fifteen: String { String(value.prefix(15)) }

    /// The key prefix (`001` for Account).
    public var keyPrefix: String { String(value.prefix(3)) }

    /// The 18-character form.
    public var description: String { value }

    /// The case-safe suffix: for each 5-character chunk, a bit per uppercase letter.
    static func suffix(of body: [UInt8]) -> [UInt8] {
        (0..<3).map { chunk in
            var bits = 0
            for position in 0..<5 where (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(body[chunk * 5 + position]) {
                bits |= 1 << position
            }
            return suffixAlphabet[bits]
        }
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
    }
}
