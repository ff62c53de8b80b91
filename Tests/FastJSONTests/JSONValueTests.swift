import FastJSON
import Testing

@Suite struct JSONValueTests {
    @Test func roundTripsEveryKind() throws {
        let text =
            #"{"s":"a\"b\\c\n\u0001é😀","i":-42,"big":9223372036854775807,"d":10.25,"e":1e300,"t":true,"f":false,"n":null,"a":[1,[2,{}],[]],"o":{"x":{"y":"z"}}}"#
        let value = try JSONValue(parsing: text)
        #expect(value["s"] == .string("a\"b\\c\n\u{1}é😀"))
        #expect(value["i"] == -42 && value["big"] == .int(.max) && value["d"] == 10.25 && value["e"] == 1e300)
        #expect(value["n"] == .some(.null) && value["missing"] == nil)
        #expect(try JSONValue(parsing: value.jsonString) == value)
        #expect(try JSONValue(parsing: #""\ud83d\ude00""#) == "😀")
        #expect(JSONValue.double(3).jsonString == "3.0")
        #expect(JSONValue.double(.nan).jsonString == "null")
    }

    @Test(arguments: [#"{"a":}"#, "[1,]", "01", "1.", "\"\u{01}\"", #""\ud83d""#, "tru", "{} {}", "", #"{"a" 1}"#, "[1 2]", #""\x""#])
    func rejectsMalformedJSON(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: text) }
    }

    @Test func rejectsExcessiveNesting() {
        #expect(throws: JSONParseError.self) {
            try JSONValue(parsing: String(repeating: "[", count: 600) + String(repeating: "]", count: 600))
        }
    }

    @Test func projectionThroughArrays() throws {
        let value = try JSONValue(parsing: #"{"a":{"b":[{"c":"xx"},{"c":"xy"},{"d":1}]},"n":null,"e":{"b":[]}}"#)
        #expect(value.value(atPath: "a.b.c") == ["xx", "xy"])
        #expect(value.value(atPath: "a.b.z") == nil)
        #expect(value.value(atPath: "n") == .some(.null))
        #expect(value.value(atPath: "missing") == nil)
        #expect(value.value(atPath: "e.b.c") == nil)
    }

    /// One-member paths take a shortcut on objects; paths with dots still walk.
    @Test func oneMemberPaths() throws {
        let object = try JSONValue(parsing: #"{"":1,"a":{"b":2},"list":[1,[2]],"n":null}"#)
        #expect(object.value(atPath: "") == 1)
        #expect(object.value(atPath: "a") == ["b": 2])
        #expect(object.value(atPath: "list") == [1, [2]]) // the member itself, not flattened
        #expect(object.value(atPath: "n") == .some(.null))
        #expect(object.value(atPath: "b") == nil)
        #expect(object.value(atPath: "a.") == nil && object.value(atPath: ".") == nil && object.value(atPath: "a..b") == nil)
        #expect(try JSONValue(parsing: #"{"a":{"":5}}"#).value(atPath: "a.") == 5)
        let array = try JSONValue(parsing: #"[{"a":1},{"a":[2,3]},{},4]"#)
        #expect(array.value(atPath: "a") == [1, 2, 3])
        #expect(array.value(atPath: "z") == nil)
        #expect(JSONValue.int(3).value(atPath: "a") == nil)
    }
}

@Suite struct JSONTopLevelScannerTests {
    @Test func readsChosenMembersOnly() throws {
        let page =
            #"{"totalSize": 3, "done": false, "records": [{"a": "}\"]", "b": [1, {"c": null}]}, "x"], "nextRecordsUrl": "/services/data/v66.0/query/01g-2000", "n": -1.5e3}"#
        let members = try JSONTopLevelScanner.members(["totalSize", "done", "nextRecordsUrl", "n"], in: Array(page.utf8))
        #expect(members == ["totalSize": 3, "done": false, "nextRecordsUrl": "/services/data/v66.0/query/01g-2000", "n": -1500.0])
        #expect(try JSONTopLevelScanner.members(["x"], in: Array("{}".utf8)).isEmpty)
        #expect(throws: JSONParseError.self) { try JSONTopLevelScanner.members(["x"], in: Array("[1]".utf8)) }
        #expect(throws: JSONParseError.self) { try JSONTopLevelScanner.members(["x"], in: Array(#"{"a": [1, 2"#.utf8)) }
    }
}
