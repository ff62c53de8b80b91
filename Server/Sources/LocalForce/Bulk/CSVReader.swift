/// The Bulk APIs' CSV (RFC 4180 with their options), read record by record from chunks that
/// arrive one at a time, so that a record may span chunks and nothing holds more than one
/// record besides the chunk.
///
/// - Fields are separated by ``CSVFormat/delimiter``; records end at LF or CRLF (either is
///   accepted whatever the job's `lineEnding` says, as the clients that write CSV mix them).
/// - A field that starts with `"` is quoted: it may hold delimiters, line breaks and `""` for
///   a quote, and must end with a quote followed by a delimiter or a line end. A quote inside
///   an unquoted field is an error, as is a quoted field never closed.
/// - Empty lines are skipped.
/// - Limits (Salesforce's): ``maximumFieldBytes`` per field, ``maximumRecordBytes`` per record,
///   ``maximumColumns`` per record, unless the reader reads LocalForce's own output.
package struct CSVReader {
    /// Salesforce's limits: 131,072 characters in a field, 400,000 in a record, 5,000 fields.
    static let maximumFieldBytes = 131_072
    static let maximumRecordBytes = 400_000
    static let maximumColumns = 5_000

    let delimiter: UInt8
    private let enforcesLimits: Bool
    private var fields: [String] = []
    /// Whether the record has a quoted field (so a line holding just `""` is a record).
    private var quotedField = false
    /// Whether the CR being looked at came right after a closing quote (only LF may follow).
    private var crAfterQuote = false
    private var field: [UInt8] = []
    private var recordBytes = 0
    private var state = State.fieldStart
    /// The 1-based line the current record started on, for error messages.
    private(set) var line = 1
    private var recordLine = 1

    private enum State {
        case fieldStart, unquoted, quoted, quoteInQuoted, afterCR
    }

    /// A reader of `delimiter`-separated records; `enforcesLimits: false` for CSV LocalForce
    /// wrote itself (results), whose values may be as long as the records they come from.
    package init(delimiter: UInt8, enforcesLimits: Bool = true) {
        self.delimiter = delimiter
        self.enforcesLimits = enforcesLimits
    }

    /// Whether a record has begun and not ended (the input must not end here).
    package var isInsideRecord: Bool { !fields.isEmpty || !field.isEmpty || state != .fieldStart }

    /// The next complete record from `chunk`, starting at `offset`, which moves past it; nil
    /// when the chunk ends first (what was read of the record is kept for the next chunk).
    package mutating func next(in chunk: [UInt8], offset: inout Int) throws(CSVError) -> [String]? {
        while offset < chunk.count {
            let byte = chunk[offset]
            offset += 1
            if let record = try consume(byte) { return record }
        }
        return nil
    }

    /// The last record when the input ends without a line break (nil when it ended cleanly).
    package mutating func finish() throws(CSVError) -> [String]? {
        switch state {
        case .quoted: throw CSVError("Unterminated quoted field starting on line \(recordLine)")
        case .afterCR:
            state = .fieldStart
            return try endRecord()
        default:
            guard isInsideRecord else { return nil }
            return try endRecord()
        }
    }

    private mutating func consume(_ byte: UInt8) throws(CSVError) -> [String]? {
        recordBytes += 1
        guard recordBytes <= Self.maximumRecordBytes || !enforcesLimits else {
            throw CSVError("The record starting on line \(recordLine) is longer than \(Self.maximumRecordBytes) bytes")
        }
        switch state {
        case .fieldStart, .unquoted:
            var record: [String]?
            if try fieldEnd(byte, record: &record) { return record }
            if byte == 0x22 {
                guard state == .fieldStart else {
                    throw CSVError("A quote inside an unquoted field on line \(line): quote the whole field and double the quote")
                }
                state = .quoted
                quotedField = true
            } else {
                try append(byte)
                state = .unquoted
            }
        case .quoted:
            if byte == 0x22 {
                state = .quoteInQuoted
            } else {
                if byte == 0x0A { line += 1 }
                try append(byte)
            }
        case .quoteInQuoted:
            if byte == 0x22 {
                try append(byte)
                state = .quoted
            } else {
                var record: [String]?
                if try fieldEnd(byte, record: &record) {
                    crAfterQuote = state == .afterCR
                    return record
                }
                throw CSVError("Characters after the closing quote of a field on line \(line)")
            }
        case .afterCR:
            if byte == 0x0A {
                line += 1
                return try endRecord()
            }
            guard !crAfterQuote else { throw CSVError("Characters after the closing quote of a field on line \(line)") }
            // A lone carriage return is data.
            try append(0x0D)
            state = .unquoted
            recordBytes -= 1
            return try consume(byte)
        }
        return nil
    }

    /// Whether `byte` ends a field's value: a delimiter ends the field, a line break the record
    /// (set in `record`, nil for an empty line), CR may start a CRLF.
    private mutating func fieldEnd(_ byte: UInt8, record: inout [String]?) throws(CSVError) -> Bool {
        switch byte {
        case delimiter:
            try endField()
            state = .fieldStart
        case 0x0A:
            line += 1
            record = try endRecord()
        case 0x0D:
            state = .afterCR
        default:
            return false
        }
        return true
    }

    private mutating func append(_ byte: UInt8) throws(CSVError) {
        guard field.count < Self.maximumFieldBytes || !enforcesLimits else {
            throw CSVError("A field on line \(recordLine) is longer than \(Self.maximumFieldBytes) bytes")
        }
        field.append(byte)
    }

    private mutating func endField() throws(CSVError) {
        guard fields.count < Self.maximumColumns || !enforcesLimits else {
            throw CSVError("The record on line \(recordLine) has more than \(Self.maximumColumns) fields")
        }
        fields.append(String(decoding: field, as: UTF8.self))
        field.removeAll(keepingCapacity: true)
    }

    private mutating func endRecord() throws(CSVError) -> [String]? {
        defer {
            recordBytes = 0
            recordLine = line
            state = .fieldStart
            quotedField = false
            crAfterQuote = false
        }
        // An empty line is no record (a line holding `""` is one).
        if fields.isEmpty, field.isEmpty, !quotedField, state == .fieldStart || state == .afterCR { return nil }
        try endField()
        let record = fields
        fields.removeAll(keepingCapacity: true)
        return record
    }
}

/// CSV the Bulk APIs cannot read, with the line it was found on.
package struct CSVError: Error, Equatable {
    package let message: String
    init(_ message: String) { self.message = message }
}
