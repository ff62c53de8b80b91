/// Finds the records of a page, and chosen members of each, as byte ranges: what a page
/// ingest needs to write records as they came, without building a single value.
@_spi(MSyncInternal) public enum JSONRecordScanner {
    /// One element of the records array.
    public struct Record: Sendable {
        /// The element's bytes.
        public var range: Range<Int>
        /// An object without whitespace outside its strings and without escapes in its own
        /// (top-level) member names: its text is what SQLite's JSON functions print for it (they keep strings and
        /// numbers as written and drop only whitespace).
        public var isCompactObject: Bool
        /// The value of each wanted name's first member, in the order of the names asked for.
        public var values: [Range<Int>?]
        /// Whether a wanted name occurs more than once.
        public var repeatsName: Bool
    }

    /// The elements of the array at `path` (member names from the top; empty for a top-level
    /// array) in the JSON text `bytes`, or `nil` when the text is not valid JSON (see
    /// ``JSONValidator``), there is no array at `path`, or a member name with an escape comes
    /// before a name of the path (it may or may not be that name). One pass: the text is
    /// validated as the records are found.
    public static func records(in bytes: UnsafeBufferPointer<UInt8>, at path: [String], names: [String]) -> [Record]? {
        var reader = JSONValidator.Reader(bytes: bytes)
        let wanted = names.map { Array($0.utf8) }
        reader.skipWhitespace()
        guard let records = reader.records(at: path[...], wanted: wanted) else { return nil }
        reader.skipWhitespace()
        return reader.index == bytes.count ? records : nil
    }

    /// Whether the bytes are the same (counts already equal).
    @inline(__always)
    static func equal(_ candidate: [UInt8], _ name: UnsafeBufferPointer<UInt8>) -> Bool {
        candidate.withUnsafeBufferPointer { mine in
            for index in 0..<mine.count where mine[index] != name[index] { return false }
            return true
        }
    }

    /// What a lookup of a member by name found.
    public enum MemberLookup: Equatable, Sendable {
        /// The value of the first member of that name.
        case found(Range<Int>)
        /// No member of that name, or not an object.
        case absent
        /// A member name with an escape comes first: whether it is the name depends on
        /// unescaping it, which the lookup does not do.
        case undecidable
    }

    /// The first member `name` of the validated object at `range`; names are compared as
    /// written, so an escaped name before the match makes it undecidable.
    public static func member(_ name: String, in range: Range<Int>, of bytes: UnsafeBufferPointer<UInt8>) -> MemberLookup {
        var reader = JSONValidator.Reader(bytes: UnsafeBufferPointer(rebasing: bytes[range]))
        switch reader.member(name) {
        case .found(let found): return .found((found.lowerBound + range.lowerBound)..<(found.upperBound + range.lowerBound))
        case let other: return other
        }
    }
}

extension JSONValidator.Reader {
    /// Reads a member name and its colon; returns where the name's bytes are and whether it has
    /// an escape.
    private mutating func name() -> (range: Range<Int>, escaped: Bool)? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        let start = index + 1
        guard string() else { return nil }
        let found = (range: start..<index - 1, escaped: lastStringEscaped)
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
        index += 1
        return found
    }

    /// Reads `,` (true) or the container's closing byte (false); `nil` for anything else.
    private mutating func next(closing: UInt8) -> Bool? {
        skipWhitespace()
        guard index < bytes.count else { return nil }
        let byte = bytes[index]
        index += 1
        if byte == UInt8(ascii: ",") { return true }
        return byte == closing ? false : nil
    }

    /// The first member `target` of the object here (read up to it), as a lookup result with
    /// offsets in this reader's bytes.
    mutating func member(_ target: String) -> JSONRecordScanner.MemberLookup {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { return .absent }
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { return .absent }
        var escapedBefore = false
        repeat {
            skipWhitespace()
            guard let name = name() else { return .absent }
            skipWhitespace()
            let start = index
            guard completeValue() else { return .absent }
            if !name.escaped, target.utf8.elementsEqual(UnsafeBufferPointer(rebasing: bytes[name.range])) {
                return escapedBefore ? .undecidable : .found(start..<index)
            }
            escapedBefore = escapedBefore || name.escaped
            guard next(closing: UInt8(ascii: "}")) == true else { return escapedBefore ? .undecidable : .absent }
        } while true
    }

    /// Validates the value here, which must hold the array at `path`, and returns its elements;
    /// `nil` when the text is invalid, or the path leads nowhere (or through a member name
    /// with an escape, which may or may not be the name).
    mutating func records(at path: ArraySlice<String>, wanted: [[UInt8]]) -> [JSONRecordScanner.Record]? {
        guard let target = path.first else { return recordsArray(wanted: wanted) }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{"), open.count < JSONValidator.maximumDepth else { return nil }
        index += 1
        open.append(true)
        defer { open.removeLast() }
        skipWhitespace()
        var found: [JSONRecordScanner.Record]?
        var escapedBefore = false
        repeat {
            skipWhitespace()
            guard let name = name() else { return nil }
            escapedBefore = escapedBefore || name.escaped
            skipWhitespace()
            if found == nil, !escapedBefore, target.utf8.elementsEqual(UnsafeBufferPointer(rebasing: bytes[name.range])) {
                guard let records = records(at: path.dropFirst(), wanted: wanted) else { return nil }
                found = records
            } else {
                guard completeValue() else { return nil }
            }
            guard let more = next(closing: UInt8(ascii: "}")) else { return nil }
            if !more { return found }
        } while true
    }

    /// Validates the array here and returns its elements, with the wanted members of each
    /// object (whether it is compact is for the caller to check).
    private mutating func recordsArray(wanted: [[UInt8]]) -> [JSONRecordScanner.Record]? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "["), open.count < JSONValidator.maximumDepth else { return nil }
        index += 1
        open.append(false)
        defer { open.removeLast() }
        var records: [JSONRecordScanner.Record] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return records
        }
        let none = [Range<Int>?](repeating: nil, count: wanted.count)
        repeat {
            skipWhitespace()
            let start = index
            var record = JSONRecordScanner.Record(range: start..<start, isCompactObject: false, values: none, repeatsName: false)
            if index < bytes.count, bytes[index] == UInt8(ascii: "{") {
                guard object(into: &record, wanted: wanted) else { return nil }
            } else {
                guard completeValue() else { return nil }
            }
            record.range = start..<index
            records.append(record)
            guard let more = next(closing: UInt8(ascii: "]")) else { return nil }
            if !more { return records }
        } while true
    }

    /// Validates the object here, recording where the wanted members' values are and whether
    /// it is compact (no whitespace outside strings, no escaped member name).
    private mutating func object(into record: inout JSONRecordScanner.Record, wanted: [[UInt8]]) -> Bool {
        guard open.count < JSONValidator.maximumDepth else { return false }
        index += 1
        open.append(true)
        defer { open.removeLast() }
        let whitespaceBefore = whitespaceRuns
        var escapedName = false
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            record.isCompactObject = whitespaceRuns == whitespaceBefore
            return true
        }
        repeat {
            skipWhitespace()
            guard let name = name() else { return false }
            escapedName = escapedName || name.escaped
            skipWhitespace()
            let valueStart = index
            guard completeValue() else { return false }
            let nameBytes = UnsafeBufferPointer(rebasing: bytes[name.range])
            if !name.escaped {
                for (position, candidate) in wanted.enumerated()
                where candidate.count == nameBytes.count && JSONRecordScanner.equal(candidate, nameBytes) {
                    if record.values[position] == nil {
                        record.values[position] = valueStart..<index
                    } else {
                        record.repeatsName = true
                    }
                }
            }
            guard let more = next(closing: UInt8(ascii: "}")) else { return false }
            if !more {
                record.isCompactObject = !escapedName && whitespaceRuns == whitespaceBefore
                return true
            }
        } while true
    }
}
