/// A Bulk job's CSV options: `columnDelimiter` and `lineEnding`, by their API names.
struct CSVFormat: Sendable, Equatable {
    /// `COMMA`, `TAB`, `PIPE`, `SEMICOLON`, `CARET`, `BACKQUOTE` and their bytes.
    static let delimiters: [(name: String, byte: UInt8)] = [
        ("COMMA", 0x2C), ("TAB", 0x09), ("PIPE", 0x7C), ("SEMICOLON", 0x3B), ("CARET", 0x5E), ("BACKQUOTE", 0x60),
    ]

    var delimiterName = "COMMA"
    var lineEnding = "LF"

    var delimiter: UInt8 { Self.delimiters.first { $0.name == delimiterName }?.byte ?? 0x2C }
    var lineBreak: [UInt8] { lineEnding == "CRLF" ? [0x0D, 0x0A] : [0x0A] }

    /// The defaults: comma, LF.
    static let comma = CSVFormat()

    private init() {}

    /// The options a job's create body gives, or Salesforce's error for an unknown one.
    init(delimiter: String?, lineEnding: String?) throws(APIError) {
        if let delimiter {
            guard Self.delimiters.contains(where: { $0.name == delimiter }) else {
                throw APIError(
                    400, "INVALIDJOB",
                    "Invalid columnDelimiter '\(delimiter)': use one of \(Self.delimiters.map(\.name).joined(separator: ", "))")
            }
            delimiterName = delimiter
        }
        if let lineEnding {
            guard lineEnding == "LF" || lineEnding == "CRLF" else {
                throw APIError(400, "INVALIDJOB", "Invalid lineEnding '\(lineEnding)': use LF or CRLF")
            }
            self.lineEnding = lineEnding
        }
    }

    /// One record, every value quoted (as Salesforce writes results), with the line ending.
    func line(_ values: [String]) -> [UInt8] {
        var bytes: [UInt8] = []
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(delimiter) }
            bytes.append(0x22)
            for byte in value.utf8 {
                if byte == 0x22 { bytes.append(0x22) }
                bytes.append(byte)
            }
            bytes.append(0x22)
        }
        bytes += lineBreak
        return bytes
    }
}
