import Testing

@_spi(MSyncInternal) @testable import FastJSON

/// The bulk ingest's validator and record scanner: the validator accepts exactly what the
/// parser accepts; the scanner finds records and members as byte ranges.
@Suite struct JSONRecordScannerTests {
    static func isValid(_ text: [UInt8]) -> Bool {
        text.withUnsafeBufferPointer { JSONValidator.isValid($0) }
    }

    static func parses(_ text: [UInt8]) -> Bool {
        (try? JSONValue(parsing: text)) != nil
    }

    static func records(_ text: String, at path: [String] = [], names: [String] = []) -> [JSONRecordScanner.Record]? {
        Array(text.utf8).withUnsafeBufferPointer { JSONRecordScanner.records(in: $0, at: path, names: names) }
    }

    @Test(
        arguments: [
            "{}", "[]", "0", "-0", "1.5e3", "-12.25E-2", "\"\"", "true", "false", "null", " [1, {\"a\": [true, null]}] ",
            "{\"a\":\"\\u00e9\\ud83d\\ude00\\n\\\\\\/\"}", "\"é€😀\"", "1e308", "[[[[[]]]]]", "{\"a\":{\"b\":{}}}",
            // Refused by both:
            "", " ", "{", "}", "[1,]", "{\"a\":1,}", "{\"a\"}", "{a:1}", "01", "1.", ".5", "1e", "-", "+1", "0x10", "tru", "nul",
            "\"\\x\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"a\u{01}b\"", "1e999", "-1e400", "[1 2]",
            "{\"a\":1 \"b\":2}", "[] []", "\"unterminated", "[\"a\\\"]",
        ])
    func validatorAgreesWithTheParser(_ text: String) {
        #expect(Self.isValid(Array(text.utf8)) == Self.parses(Array(text.utf8)), "\(text)")
    }

    /// A quote, backslash escape, control character or multi-byte character at every place of
    /// strings of every length up to 40, across the eight-byte blocks the scan reads at once.
    @Test func stringsAtEveryOffset() {
        let specials: [[UInt8]] = [[0x5C, 0x6E], [0x5C, 0x22], [0x01], [0xC3, 0xA9], [0xE2, 0x82], [0x22], [0x7F], [0x80]]
        for length in 0...40 {
            for offset in 0...length {
                for special in specials {
                    var text: [UInt8] = [0x20, 0x22] + Array(repeating: UInt8(ascii: "x"), count: length) + [0x22, 0x20]
                    text.insert(contentsOf: special, at: 2 + offset)
                    #expect(Self.isValid(text) == Self.parses(text), "\(text)")
                    let array = [UInt8(ascii: "[")] + text + [UInt8(ascii: ",")] + text + [UInt8(ascii: "]")]
                    if Self.parses(array) {
                        let found = array.withUnsafeBufferPointer { JSONRecordScanner.records(in: $0, at: [], names: []) }
                        #expect(found?.count == 2)
                    }
                }
            }
        }
    }

    /// Random edits of a document: the validator and the parser agree on every one.
    @Test func agreesOnRandomEdits() {
        let document = Array(
            #"{"records":[{"Id":"001","Name":"A\u00e9 \"x\"","n":-12.5e2,"ok":true,"z":null,"sub":{"a":[1,2,{"b":"é"}]}}],"done":false}"#
                .utf8)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let alphabet = Array(#"{}[]",:\ 0123456789.eE-+tfnulrsaxé"#.utf8) + [0x00, 0x1F, 0x80, 0xFF]
        var disagreements: [String] = []
        for _ in 0..<20_000 {
            var text = document
            for _ in 0..<1 + next(3) {
                let place = next(text.count)
                switch next(3) {
                case 0: text[place] = alphabet[next(alphabet.count)]
                case 1: text.insert(alphabet[next(alphabet.count)], at: place)
                default: text.remove(at: place)
                }
            }
            let parses = Self.parses(text)
            let scanned = text.withUnsafeBufferPointer { JSONRecordScanner.records(in: $0, at: ["records"], names: ["Id"]) }
            if Self.isValid(text) != parses || (!parses && scanned != nil) {
                disagreements.append(String(decoding: text, as: UTF8.self))
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(3))")
    }

    @Test func nestingLimitIsTheParsers() {
        for depth in [511, 512, 513] {
            let text = Array(repeating: UInt8(ascii: "["), count: depth) + Array(repeating: UInt8(ascii: "]"), count: depth)
            #expect(Self.isValid(text) == Self.parses(text), "depth \(depth)")
        }
        #expect(Self.isValid(Array(repeating: UInt8(ascii: "["), count: 100_000)) == false)
        // The path's object and the records array count too: the object and 511 brackets are 512
        // (allowed); one bracket more is 513.
        for (depth, allowed) in [(511, true), (512, false)] {
            let text = #"{"r":"# + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}"
            #expect(Self.parses(Array(text.utf8)) == allowed)
            #expect((Self.records(text, at: ["r"]) != nil) == allowed, "depth \(depth)")
        }
    }

    @Test func findsRecordsAndTheirMembers() throws {
        let text = #"{"totalSize":3,"records":[{"Id":"1","Name":"A","sub":{"x":1}},{"Name":"B","Id":"2"},{"Id":"3","Id":"4"}]}"#
        let found = try #require(Self.records(text, at: ["records"], names: ["Id", "sub", "missing"]))
        let bytes = Array(text.utf8)
        func slice(_ range: Range<Int>?) -> String? { range.map { String(decoding: bytes[$0], as: UTF8.self) } }
        #expect(found.count == 3)
        #expect(slice(found[0].range) == #"{"Id":"1","Name":"A","sub":{"x":1}}"#)
        #expect(found.map(\.isCompactObject) == [true, true, true])
        #expect(found[0].values.map(slice) == [#""1""#, #"{"x":1}"#, nil])
        #expect(found[1].values.map(slice) == [#""2""#, nil, nil])
        #expect(found[2].values.map(slice) == [#""3""#, nil, nil])
        #expect(found[2].repeatsName)
        #expect(!found[0].repeatsName)
        let sub = try #require(found[0].values[1])
        guard case .found(let x) = bytes.withUnsafeBufferPointer({ JSONRecordScanner.member("x", in: sub, of: $0) }) else {
            Issue.record("no member x")
            return
        }
        #expect(slice(x) == "1")
    }

    /// A member name with an escape before the one looked for leaves the lookup undecided
    /// (SQLite versions differ on unescaping names); after it, it does not matter.
    @Test func escapedNamesMakeALookupUndecidable() {
        func lookup(_ text: String, _ name: String) -> JSONRecordScanner.MemberLookup {
            let bytes = Array(text.utf8)
            return bytes.withUnsafeBufferPointer { JSONRecordScanner.member(name, in: 0..<bytes.count, of: $0) }
        }
        #expect(lookup(#"{"\u0061":1,"a":2}"#, "a") == .undecidable)
        #expect(lookup(#"{"\u0062":1}"#, "a") == .undecidable)
        #expect(lookup(#"{ "a" : 2 , "\u0061":1}"#, "a") == .found(8..<9))
        #expect(lookup(#"{"b":1}"#, "a") == .absent)
        #expect(lookup(#"[1]"#, "a") == .absent)
    }

    @Test func whitespaceOrEscapedNamesAreNotCompact() throws {
        let found = try #require(Self.records(#"[ {"a": 1}, {"a":1 }, {"\u0061":1}, {"a":[1, 2]}, {"a":"x y"}, 5, "s" ]"#, names: ["a"]))
        #expect(found.map(\.isCompactObject) == [false, false, false, false, true, false, false])
        #expect(found[4].values[0] != nil)
    }

    @Test func pathsThatHoldNoArray() {
        #expect(Self.records(#"{"records":{"a":1}}"#, at: ["records"]) == nil)
        #expect(Self.records(#"{"other":[]}"#, at: ["records"]) == nil)
        #expect(Self.records(#"[1]"#, at: ["records"]) == nil)
        #expect(Self.records(#"{"records":[1,2"#, at: ["records"]) == nil)
        #expect(Self.records(#"{"a":{"b":[{}]}}"#, at: ["a", "b"])?.count == 1)
        #expect(Self.records(#"{"records":[]}"#, at: ["records"])?.isEmpty == true)
    }
}
