/// An 18-character Salesforce record id: a 3-character key prefix, 12 more characters, and a
/// 3-character case-safe checksum suffix computed from the first 15.
public struct SalesforceId: Sendable, Hashable, CustomStringConvertible {
    /// The 18-character form.
    public let value: String

    private static let suffixAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ012345")
    private static let bodyAlphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")

    /// Parses a 15- or 18-character id; an 18-character one must carry the right checksum.
    ///
    /// - Returns: `nil` for anything else (the server answers `MALFORMED_ID`).
    public init?(_ text: String) {
        let characters = Array(text)
        guard characters.count == 15 || characters.count == 18,
              characters.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return nil }
        let body = String(characters.prefix(15))
        let full = body + Self.suffix(of: body)
        if characters.count == 18 && full != text { return nil }
        value = full
    }

    /// An id made of a key prefix and a sequence number (`001` + 12 characters + checksum).
    init(prefix: String, sequence: UInt64) {
        var digits: [Character] = []
        var remaining = sequence
        for _ in 0..<9 {
            digits.append(Self.bodyAlphabet[Int(remaining % 62)])
            remaining /= 62
        }
        // Three fixed characters after the prefix mimic a pod/instance marker ("000" is fine).
        let body = prefix + "0" + "00" + String(digits.reversed())
        value = body + Self.suffix(of: body)
    }

    /// The 15-character case-sensitive form.
    public var fifteen: String { String(value.prefix(15)) }

    /// The key prefix (`001` for Account).
    public var keyPrefix: String { String(value.prefix(3)) }

    public var description: String { value }

    /// The case-safe suffix: for each 5-character chunk, a bit per uppercase letter.
    static func suffix(of body: String) -> String {
        let characters = Array(body)
        var suffix = ""
        for chunk in 0..<3 {
            var bits = 0
            for position in 0..<5 {
                let character = characters[chunk * 5 + position]
                if character >= "A" && character <= "Z" { bits |= 1 << position }
            }
            suffix.append(suffixAlphabet[bits])
        }
        return suffix
    }
}
