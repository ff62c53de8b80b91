/// Checks that bytes are one JSON document that ``JSONValue/init(parsing:)-(Collection<UInt8>)``
/// would accept, without building any value: the same grammar, UTF-8 and surrogate rules,
/// number range and nesting limit. Iterative, so deep input costs no stack.
@_spi(MSyncInternal) public enum JSONValidator {
    /// The nesting limit, the parser's.
    public static let maximumDepth = 512

    /// Whether `bytes` hold exactly one JSON value (surrounding whitespace allowed).
    public static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var reader = Reader(bytes: bytes)
        return reader.document()
    }

    /// Reads a document while validating it; ``JSONRecordScanner`` drives it to find records
    /// in the same pass.
    struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0
        /// Open containers, innermost last: true for an object.
        var open: [Bool] = []
        /// How many runs of whitespace were skipped so far.
        var whitespaceRuns = 0
        /// Whether the last string read had an escape.
        var lastStringEscaped = false

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
            open.reserveCapacity(16)
        }

        mutating func skipWhitespace() {
            let start = index
            defer { if index > start { whitespaceRuns += 1 } }
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x0A, 0x0D, 0x09: index += 1
                default: return
                }
            }
        }

        /// Reads one document: a value with whitespace around it, and nothing else.
        mutating func document() -> Bool {
            skipWhitespace()
            guard completeValue() else { return false }
            skipWhitespace()
            return index == bytes.count
        }

        /// Reads one whole value, with the containers it opens.
        mutating func completeValue() -> Bool {
            let level = open.count
            guard value() else { return false }
            while open.count > level, let isObject = open.last {
                skipWhitespace()
                guard index < bytes.count else { return false }
                let byte = bytes[index]
                index += 1
                if byte == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    open.removeLast()
                    continue
                }
                guard byte == UInt8(ascii: ",") else { return false }
                skipWhitespace()
                if isObject, !memberName() { return false }
                skipWhitespace()
                guard value() else { return false }
            }
            return true
        }

        /// `"name"` then `:`.
        mutating func memberName() -> Bool {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), string() else { return false }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return false }
            index += 1
            return true
        }

        /// One value; a container is opened (its first member or element read) and left for
        /// ``completeValue()`` to continue.
        mutating func value() -> Bool {
            while true {
                guard index < bytes.count else { return false }
                switch bytes[index] {
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    let isObject = bytes[index] == UInt8(ascii: "{")
                    guard open.count < JSONValidator.maximumDepth else { return false }
                    index += 1
                    skipWhitespace()
                    if index < bytes.count, bytes[index] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                        index += 1
                        return true
                    }
                    open.append(isObject)
                    if isObject {
                        guard memberName() else { return false }
                    }
                    skipWhitespace()
                    continue // the first member's value or the first element
                case UInt8(ascii: "\""): return string()
                case UInt8(ascii: "t"): return literal("true")
                case UInt8(ascii: "f"): return literal("false")
                case UInt8(ascii: "n"): return literal("null")
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
                default: return false
                }
            }
        }

        mutating func literal(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard index + count <= bytes.count else { return false }
            for offset in 0..<count where bytes[index + offset] != text.utf8Start[offset] { return false }
            index += count
            return true
        }

        /// A string from its opening quote: no control characters, valid escapes with paired
        /// surrogates, well-formed UTF-8.
        mutating func string() -> Bool {
            lastStringEscaped = false
            index += 1
            var runStart = index
            var highBits: UInt8 = 0
            while true {
                index = StringRunScan.nextSpecial(bytes, from: index)
                guard index < bytes.count else { return false }
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""):
                    let valid = highBits < 0x80 || UTF8Validation.isValid(UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                    index += 1
                    return valid
                case UInt8(ascii: "\\"):
                    // Escapes are ASCII: check the raw run before them, then go on after.
                    guard highBits < 0x80 || UTF8Validation.isValid(UnsafeBufferPointer(rebasing: bytes[runStart..<index])) else {
                        return false
                    }
                    index += 1
                    lastStringEscaped = true
                    guard escape() else { return false }
                    runStart = index
                    highBits = 0
                case 0..<0x20: return false
                default:
                    highBits |= byte
                    index += 1
                }
            }
        }

        /// The escape after a backslash.
        mutating func escape() -> Bool {
            guard index < bytes.count else { return false }
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"),
                UInt8(ascii: "r"), UInt8(ascii: "t"):
                return true
            case UInt8(ascii: "u"):
                guard let unit = hex4() else { return false }
                if (0xDC00..<0xE000).contains(unit) { return false }
                guard (0xD800..<0xDC00).contains(unit) else { return true }
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    return false
                }
                index += 2
                guard let low = hex4() else { return false }
                return (0xDC00..<0xE000).contains(low)
            default: return false
            }
        }

        mutating func hex4() -> UInt32? {
            guard let value = HexDigits.value4(bytes, at: index) else { return nil }
            index += 4
            return value
        }

        /// JSON's number grammar; a number that reads as an infinite double is refused, as the
        /// parser refuses it.
        mutating func number() -> Bool {
            let start = index
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) else { return false }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
            } else {
                digits()
            }
            var hasExponent = false
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard digits() else { return false }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                hasExponent = true
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard digits() else { return false }
            }
            // Only an exponent or some 300 digits can reach infinity.
            guard hasExponent || index - start > 300 else { return true }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            return Double(text)?.isFinite == true
        }

        @discardableResult
        mutating func digits() -> Bool {
            let start = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index > start
        }
    }
}

/// The four hex digits of a `\u` escape.
enum HexDigits {
    /// The value of the four hex digits at `index`, or `nil` when they are not four hex digits.
    static func value4(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> UInt32? {
        guard index >= 0, index + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for byte in bytes[index..<index + 4] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }
}
