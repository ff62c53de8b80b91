import SOQL
import Testing

@Suite struct SOSLParserTests {
    @Test func fullSearch() throws {
        let query = try SOSLParser.parse(
            """
            FIND {Acme* AND "Rocket Co" OR (Jo?n AND NOT Smith)} IN NAME FIELDS
            RETURNING Account(Id, Name WHERE Industry = 'Energy' ORDER BY Name LIMIT 5), Contact(Id, Email), Lead LIMIT 20 OFFSET 10
            """)
        #expect(query.searchText == #"Acme* AND "Rocket Co" OR (Jo?n AND NOT Smith)"#)
        #expect(query.scope == .name)
        #expect(query.expression == .or([.and([.term("Acme*"), .phrase("Rocket Co")]), .andNot(.term("Jo?n"), .term("Smith"))]))
        #expect(query.returning.map(\.object) == ["Account", "Contact", "Lead"])
        #expect(query.returning[0].fields.map(\.description) == ["Id", "Name"])
        #expect(query.returning[0].limit == 5)
        #expect(query.returning[0].condition == .comparison(FieldPath(["Industry"]), .equal, .string("Energy")))
        #expect(query.limit == 20 && query.offset == 10)
    }

    @Test func minimalAndImplicitAnd() throws {
        let query = try SOSLParser.parse("find {acme rockets}")
        #expect(query.expression == .and([.term("acme"), .term("rockets")]))
        #expect(query.scope == .all && query.returning.isEmpty)
        #expect(try SOSLParser.parse(#"FIND {a\}b} RETURNING Account"#).searchText == #"a\}b"#)
        #expect(try SOSLParser.parse(#"FIND {a\}b} RETURNING Account"#).expression == .term("a}b"))
    }

    @Test(arguments: [
        "FIND Acme", "FIND {Acme", "FIND {} RETURNING Account", "FIND {a} IN BOGUS FIELDS", "FIND {a} RETURNING",
        "FIND {a} RETURNING Account(", "FIND {(a} RETURNING Account", "SEARCH {a}", "FIND {a} OFFSET 2001",
    ])
    func malformedSearches(_ text: String) {
        #expect(throws: SOQLError.self) { try SOSLParser.parse(text) }
    }
}
