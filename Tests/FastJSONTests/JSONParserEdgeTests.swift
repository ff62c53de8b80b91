import FastJSON
import Testing

/// The parser's own UTF-8 check, its integer reading and its shared member stack.
@Suite struct JSONParserEdgeTests {
    /// Well-formed UTF-8 of every length, as text and after an escape, is read as written.
    @Test func readsWellFormedUTF8() throws {
        for text in ["é", "€", "😀", "\u{10FFFF}", "\u{FFFD}", "a\u{7FF}b\u{800}c\u{FFFF}d\u{10000}"] {
            #expect(try JSONValue(parsing: "\"\(text)\"") == .string(text))
            #expect(try JSONValue(parsing: "\"\\n\(text)\"") == .string("\n" + text))
        }
    }

    /// Ill-formed UTF-8 is refused, with or without an escape before it: overlong forms,
    /// surrogates, code points above U+10FFFF, stray continuation bytes, truncated sequences.
    @Test(
        arguments: [
            [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xE0, 0x9F, 0xBF], [0xF0, 0x80, 0x80, 0x80],
            [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFF],
            [0x80], [0xBF], [0xC3], [0xE2, 0x82], [0xF0, 0x9F, 0x98], [0xE2, 0x28, 0xA1], [0xC3, 0x41],
        ] as [[UInt8]])
    func refusesIllFormedUTF8(_ sequence: [UInt8]) {
        let quote = UInt8(ascii: "\"")
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: [quote] + sequence + [quote]) }
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: [quote, 0x5C, 0x6E] + sequence + [quote]) }
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: [quote, 0x61] + sequence + [0x62, quote]) }
    }

    /// Integers are read exactly up to the 64-bit limits, and as doubles beyond them.
    @Test func readsIntegersToTheirLimits() throws {
        #expect(try JSONValue(parsing: "9223372036854775807") == .int(.max))
        #expect(try JSONValue(parsing: "-9223372036854775808") == .int(.min))
        #expect(try JSONValue(parsing: "9223372036854775808") == .double(9_223_372_036_854_775_808))
        #expect(try JSONValue(parsing: "-9223372036854775809") == .double(-9.223_372_036_854_775_808e18))
        #expect(try JSONValue(parsing: "99999999999999999999") == .double(1e20))
        #expect(try JSONValue(parsing: "-0") == .int(0))
        #expect(try JSONValue(parsing: "0") == .int(0))
        #expect(try JSONValue(parsing: "[-1,12,-345]") == [-1, 12, -345])
        #expect(try JSONValue(parsing: "1.0") == .double(1))
    }

    /// Objects nested in members and in arrays keep their own members; the last of duplicate
    /// keys wins, at every level.
    @Test func nestedObjectsKeepTheirMembers() throws {
        let text = #"{"a":{"x":1,"y":{"z":[{"p":1},{"q":2,"q":3}]},"x":4},"b":[{},{"c":{}}],"a2":5,"a2":6}"#
        let value = try JSONValue(parsing: text)
        #expect(value == ["a": ["x": 4, "y": ["z": [["p": 1], ["q": 3]]]], "b": [[:], ["c": [:]]], "a2": 6])
        let wide = "{" + (0..<100).map { "\"k\($0)\":{\"v\":\($0)}" }.joined(separator: ",") + "}"
        let parsed = try JSONValue(parsing: wide)
        #expect(parsed.objectValue?.count == 100)
        #expect(parsed["k99"]?["v"] == 99 && parsed["k0"]?["v"] == 0)
    }
}
