/// Reads chosen members of a JSON object without decoding the rest: other values are skipped
/// byte by byte (strings, nesting), so a 2000-record query page yields its `totalSize` and
/// `nextRecordsUrl` without a single record being built.
public enum JSONTopLevelScanner {
    /// The values of `keys` among the top-level members of the object in `bytes`.
    ///
    /// - Throws: ``JSONParseError`` when the text is not a JSON object (or is malformed where it is read).
    public static func members(_ keys: Set<String>, in bytes: some Collection<UInt8>) throws(JSONParseError) -> [String: JSONValue] {
        let contiguous = Array(bytes)
        return try contiguous.withUnsafeBufferPointer { buffer throws(JSONParseError) -> [String: JSONValue] in
            var scanner = Scanner(bytes: buffer)
            return try scanner.members(keys)
        }
    }

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        func error(_ reason: String) -> JSONParseError { JSONParseError(reason: reason, offset: index) }

        mutating func skipWhitespace() {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
                index += 1
            }
        }

        mutating func members(_ keys: Set<String>) throws(JSONParseError) -> [String: JSONValue] {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { throw error("expected a JSON object") }
            index += 1
            var result: [String: JSONValue] = [:]
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") { return result }
            while true {
                skipWhitespace()
                let keyStart = index
                try skipString()
                let key = try JSONValue(parsing: UnsafeBufferPointer(rebasing: bytes[keyStart..<index])).stringValue ?? ""
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
                index += 1
                skipWhitespace()
                let valueStart = index
                try skipValue()
                if keys.contains(key) {
                    result[key] = try JSONValue(parsing: UnsafeBufferPointer(rebasing: bytes[valueStart..<index]))
                }
                skipWhitespace()
                guard index < bytes.count else { throw error("unexpected end of input") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                } else if bytes[index] == UInt8(ascii: "}") {
                    return result
                } else {
                    throw error("expected ',' or '}'")
                }
            }
        }

        mutating func skipString() throws(JSONParseError) {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a string") }
            index += 1
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\\"): index += 2
                case UInt8(ascii: "\""):
                    index += 1
                    return
                default: index += 1
                }
            }
            throw error("unterminated string")
        }

        /// Skips one value: strings and nested containers are matched, scalars run to a delimiter.
        mutating func skipValue() throws(JSONParseError) {
            guard index < bytes.count else { throw error("unexpected end of input") }
            switch bytes[index] {
            case UInt8(ascii: "\""):
                try skipString()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                while index < bytes.count {
                    switch bytes[index] {
                    case UInt8(ascii: "\""):
                        try skipString()
                        continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        if depth == 0 {
                            index += 1
                            return
                        }
                    default: break
                    }
                    index += 1
                }
                throw error("unterminated container")
            default:
                while index < bytes.count,
                    ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x0A, 0x0D, 0x09].contains(bytes[index])
                {
                    index += 1
                }
            }
        }
    }
}
