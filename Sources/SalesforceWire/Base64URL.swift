/// Base64url without padding (RFC 4648 §5), as OAuth uses it: PKCE challenges and the three
/// parts of a JWT.
///
/// Decoding is strict and never traps: any character outside the URL-safe alphabet, or a
/// length no encoder produces, gives `nil`.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The bytes as base64url text, without `=` padding.
    public static func encode<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity((input.count + 2) / 3 * 4)
        var index = 0
        while index < input.count {
            let remaining = input.count - index
            let b0 = UInt32(input[index])
            let b1 = remaining > 1 ? UInt32(input[index + 1]) : 0
            let b2 = remaining > 2 ? UInt32(input[index + 2]) : 0
            let group = b0 << 16 | b1 << 8 | b2
            output.append(alphabet[Int(group >> 18 & 63)])
            output.append(alphabet[Int(group >> 12 & 63)])
            if remaining > 1 { output.append(alphabet[Int(group >> 6 & 63)]) }
            if remaining > 2 { output.append(alphabet[Int(group & 63)]) }
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes of base64url text (padding `=` tolerated at the end), or `nil` when the text
    /// is not base64url.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var characters = Array(text.utf8)
        while characters.last == UInt8(ascii: "=") { characters.removeLast() }
        guard characters.count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(characters.count * 3 / 4)
        var group: UInt32 = 0
        var bits = 0
        for character in characters {
            guard let value = sextet(character) else { return nil }
            group = group << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: group >> UInt32(bits)))
                group &= (1 << UInt32(bits)) - 1
            }
        }
        // Leftover bits must be zero, as an encoder leaves them.
        guard group == 0 else { return nil }
        return output
    }

    private static func sextet(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: nil
        }
    }
}
