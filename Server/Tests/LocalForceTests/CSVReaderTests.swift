import Testing

@testable import LocalForce

/// The Bulk APIs' CSV reader on the edge cases clients produce.
@Suite struct CSVReaderTests {
    static func read(_ text: String, delimiter: UInt8 = 0x2C) -> Result<[[String]], CSVError> {
        var reader = CSVReader(delimiter: delimiter)
        var records: [[String]] = []
        let bytes = Array(text.utf8)
        var offset = 0
        do {
            while let record = try reader.next(in: bytes, offset: &offset) { records.append(record) }
            if let last = try reader.finish() { records.append(last) }
            return .success(records)
        } catch {
            return .failure(error)
        }
    }

    @Test func recordsAndLineEndings() throws {
        #expect(try Self.read("a,b\n1,2\n").get() == [["a", "b"], ["1", "2"]])
        #expect(try Self.read("a,b\r\n1,2\r\n\r\n").get() == [["a", "b"], ["1", "2"]])
        #expect(try Self.read("a,\"x, \"\"y\"\"\nz\"\n").get() == [["a", "x, \"y\"\nz"]])
        // A line holding one empty quoted field is a record, with either line ending (Python's
        // csv module writes it for a one-column empty row); an empty line is none.
        #expect(try Self.read("Name\r\n\"\"\r\n\r\nB\r\n").get() == [["Name"], [""], ["B"]])
        #expect(try Self.read("Name\n\"\"\n\nB").get() == [["Name"], [""], ["B"]])
        // A lone carriage return inside an unquoted field is data.
        #expect(try Self.read("a\rb,c\n").get() == [["a\rb", "c"]])
        #expect(try Self.read("a\tb\n", delimiter: 0x09).get() == [["a", "b"]])
    }

    @Test func malformedInputIsAnError() {
        for text in ["\"unterminated\n", "a\"b\n", "\"a\"b\n", "\"a\"\rX\n"] {
            guard case .failure = Self.read(text) else {
                Issue.record("\(text.debugDescription) was read")
                continue
            }
        }
        let long = String(repeating: "x", count: CSVReader.maximumFieldBytes + 1)
        guard case .failure(let error) = Self.read("a\n\(long)\n") else {
            Issue.record("a field over the limit was read")
            return
        }
        #expect(error.message.contains("longer than"))
    }
}
