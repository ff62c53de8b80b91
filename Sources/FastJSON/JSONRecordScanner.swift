/// Finds the records of a page, and chosen members of each, as byte ranges: what a page
/// ingest needs to write records as they came, without building a single value.
package enum JSONRecordScanner {
    /// One element of the records array.
    package struct Record: Sendable {
        /// The element's bytes.
        package var range: Range<Int>
        /// An object without whitespace outside its strings and without escapes in its member
        /// names: its text is what SQLite's JSON functions print for it (they keep strings and
        /// numbers as written and drop only whitespace).
        package var isCompactObject: Bool
        /// The value of each wanted name's first member, in the order of the names asked for.
        package var values: [Range<Int>?]
        /// Whether a wanted name occurs more than once.
        package var repeatsName: Bool
    }

    /// The elements of the array at `path` (member names from the top; empty for a top-level
    /// array) in the JSON text `bytes`, or `nil` when the text is not valid JSON (see
    /// ``JSONValidator``) or there is no array at `path`.
    package static func records(in bytes: UnsafeBufferPointer<UInt8>, at path: [String], names: [String]) -> [Record]? {
        guard JSONValidator.isValid(bytes) else { return nil }
        var cursor = Cursor(bytes: bytes, index: 0)
        cursor.skipWhitespace()
        var target = cursor.index..<cursor.skipValue().end
        for name in path {
            guard case .found(let member) = Cursor.member(name, in: target, of: bytes) else { return nil }
            target = member
        }
        guard bytes[target.lowerBound] == UInt8(ascii: "[") else { return nil }
        let wanted = names.map { Array($0.utf8) }
        let none = [Range<Int>?](repeating: nil, count: names.count)
        var records: [Record] = []
        cursor.index = target.lowerBound + 1
        cursor.skipWhitespace()
        if bytes[cursor.index] == UInt8(ascii: "]") { return records }
        while true {
            cursor.skipWhitespace()
            let start = cursor.index
            var record = Record(range: start..<start, isCompactObject: false, values: none, repeatsName: false)
            if bytes[start] == UInt8(ascii: "{"), let end = Cursor.readCompactMembers(from: start, in: bytes, wanted: wanted, into: &record)
            {
                record.range = start..<end
                record.isCompactObject = true
                cursor.index = end
            } else {
                record.values = none
                record.repeatsName = false
                record.range = start..<cursor.skipValue().end
            }
            records.append(record)
            cursor.skipWhitespace()
            if bytes[cursor.index] == UInt8(ascii: "]") { return records }
            cursor.index += 1 // ","
        }
    }

    /// What a lookup of a member by name found.
    package enum MemberLookup: Equatable, Sendable {
        /// The value of the first member of that name.
        case found(Range<Int>)
        /// No member of that name, or not an object.
        case absent
        /// A member name with an escape comes first: whether it is the name depends on
        /// unescaping it, which the lookup does not do.
        case undecidable
    }

    /// The first member `name` of the validated object at `range`.
    package static func member(_ name: String, in range: Range<Int>, of bytes: UnsafeBufferPointer<UInt8>) -> MemberLookup {
        Cursor.member(name, in: range, of: bytes)
    }

    /// Moves over text already validated: no checks but the bounds.
    private struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var index: Int

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x0A, 0x0D, 0x09: index += 1
                default: return
                }
            }
        }

        /// Skips a string from its opening quote; reports whether it holds an escape.
        @discardableResult
        mutating func skipString() -> Bool {
            index += 1
            var escaped = false
            while true {
                index = StringRunScan.nextQuoteOrBackslash(bytes, from: index)
                guard index < bytes.count else { return escaped }
                switch bytes[index] {
                case UInt8(ascii: "\\"):
                    escaped = true
                    index += 2
                case UInt8(ascii: "\""):
                    index += 1
                    return escaped
                default: index += 1
                }
            }
        }

        /// Skips one value; reports where it ends and whether whitespace occurs in it outside strings.
        mutating func skipValue() -> (end: Int, hasWhitespace: Bool) {
            guard index < bytes.count else { return (index, false) }
            switch bytes[index] {
            case UInt8(ascii: "\""):
                skipString()
                return (index, false)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                var hasWhitespace = false
                while index < bytes.count {
                    switch bytes[index] {
                    case UInt8(ascii: "\""):
                        skipString()
                        continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        if depth == 0 {
                            index += 1
                            return (index, hasWhitespace)
                        }
                    case 0x20, 0x0A, 0x0D, 0x09: hasWhitespace = true
                    default: break
                    }
                    index += 1
                }
                return (index, hasWhitespace)
            default:
                while index < bytes.count {
                    switch bytes[index] {
                    case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x0A, 0x0D, 0x09:
                        return (index, false)
                    default: index += 1
                    }
                }
                return (index, false)
            }
        }

        /// Whether the bytes are the same (counts already equal).
        @inline(__always)
        static func equal(_ candidate: [UInt8], _ name: UnsafeBufferPointer<UInt8>) -> Bool {
            candidate.withUnsafeBufferPointer { mine in
                for index in 0..<mine.count where mine[index] != name[index] { return false }
                return true
            }
        }

        /// Walks the members of the object at `start`, recording the wanted ones, and returns
        /// where it ends; `nil` when whitespace occurs outside its strings or a member name has
        /// an escape (its text is then not what SQLite prints, or its bytes not its name).
        static func readCompactMembers(from start: Int, in bytes: UnsafeBufferPointer<UInt8>, wanted: [[UInt8]], into record: inout Record)
            -> Int?
        {
            var cursor = Cursor(bytes: bytes, index: start + 1)
            if bytes[cursor.index] == UInt8(ascii: "}") { return cursor.index + 1 }
            while true {
                guard bytes[cursor.index] == UInt8(ascii: "\"") else { return nil }
                let nameStart = cursor.index + 1
                if cursor.skipString() { return nil }
                let name = UnsafeBufferPointer(rebasing: bytes[nameStart..<cursor.index - 1])
                guard bytes[cursor.index] == UInt8(ascii: ":") else { return nil }
                cursor.index += 1
                let valueStart = cursor.index
                let value = cursor.skipValue()
                guard !value.hasWhitespace, valueStart < value.end else { return nil }
                for (position, candidate) in wanted.enumerated() where candidate.count == name.count && Self.equal(candidate, name) {
                    if record.values[position] == nil {
                        record.values[position] = valueStart..<value.end
                    } else {
                        record.repeatsName = true
                    }
                }
                switch bytes[cursor.index] {
                case UInt8(ascii: "}"): return cursor.index + 1
                case UInt8(ascii: ","): cursor.index += 1
                default: return nil
                }
            }
        }

        /// The first member `name` of the validated object at `range`, with whitespace allowed;
        /// names are compared as written, so an escaped name before the match makes it undecidable.
        static func member(_ name: String, in range: Range<Int>, of bytes: UnsafeBufferPointer<UInt8>) -> MemberLookup {
            guard bytes[range.lowerBound] == UInt8(ascii: "{") else { return .absent }
            var cursor = Cursor(bytes: bytes, index: range.lowerBound + 1)
            var sawEscape = false
            cursor.skipWhitespace()
            if bytes[cursor.index] == UInt8(ascii: "}") { return .absent }
            while true {
                cursor.skipWhitespace()
                let nameStart = cursor.index + 1
                let escaped = cursor.skipString()
                sawEscape = sawEscape || escaped
                let candidate = UnsafeBufferPointer(rebasing: bytes[nameStart..<cursor.index - 1])
                cursor.skipWhitespace()
                cursor.index += 1 // ":"
                cursor.skipWhitespace()
                let valueStart = cursor.index
                let valueEnd = cursor.skipValue().end
                if !escaped, name.utf8.elementsEqual(candidate) { return sawEscape ? .undecidable : .found(valueStart..<valueEnd) }
                cursor.skipWhitespace()
                if bytes[cursor.index] == UInt8(ascii: "}") { return sawEscape ? .undecidable : .absent }
                cursor.index += 1 // ","
            }
        }
    }
}
