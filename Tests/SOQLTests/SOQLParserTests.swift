import Foundation
import SOQL
import Testing

@Suite struct SOQLParserTests {
    @Test(arguments: [
        "SELECT Id, Name FROM Account",
        "SELECT Id, Account.Name, Account.Owner.Name FROM Contact WHERE LastName = 'Smith'",
        "SELECT Id, (SELECT Id, LastName FROM Contacts WHERE LastName LIKE 'S%' ORDER BY LastName DESC LIMIT 5) FROM Account",
        "SELECT Id FROM Account WHERE (Name = 'A' OR Name = 'B') AND Industry != null",
        "SELECT Id FROM Account WHERE NOT Name LIKE 'Acme%'",
        "SELECT Id FROM Contact WHERE AccountId IN (SELECT Id FROM Account WHERE Industry = 'Energy')",
        "SELECT Id FROM Contact WHERE AccountId NOT IN (SELECT Id FROM Account)",
        "SELECT Id FROM Account WHERE Industry IN ('Energy', 'Media', '')",
        "SELECT Id FROM Account WHERE Industry NOT IN ('Energy')",
        "SELECT Id FROM Opportunity WHERE Amount > -3.5 AND Probability <= 100 AND IsClosed = false AND IsWon = true",
        "SELECT Id FROM Account WHERE CreatedDate > 2024-01-02T03:04:05.000+0000 AND LastModifiedDate < 2024-01-02T03:04:05Z",
        "SELECT Id FROM Account WHERE CreatedDate >= 2024-01-02T03:04:05-08:00 AND CloseDate__c = 2024-01-02",
        "SELECT Id FROM Account WHERE CreatedDate = TODAY OR CreatedDate = LAST_N_DAYS:30 OR CreatedDate > N_DAYS_AGO:3",
        "SELECT Id FROM Account ORDER BY Name ASC NULLS LAST, CreatedDate DESC NULLS FIRST, Id LIMIT 10 OFFSET 2000",
        "SELECT COUNT() FROM Account WHERE Name LIKE 'A\\_%'",
        "SELECT COUNT(Id) FROM Account",
        "SELECT Id FROM Account FOR VIEW",
        "SELECT Id FROM Account LIMIT 1 FOR REFERENCE",
        "SELECT Id FROM Account WHERE Name = 'O\\'Brien \\\\ \\n'",
        "SELECT Id FROM Account WHERE Interests__c INCLUDES ('a;b', 'c') AND Interests__c EXCLUDES ('d')",
    ])
    func roundTrips(_ text: String) throws {
        let query = try SOQLParser.parse(text)
        #expect(query.description == text)
        #expect(try SOQLParser.parse(query.description) == query)
    }

    @Test func structure() throws {
        let query = try SOQLParser.parse(
            """
            select Id, a.Name, Account.Industry, (select LastName from Contacts)
            from Account a
            where a.Name like 'Ac%' and Industry in ('Energy')
            order by a.Name desc nulls last limit 5
            """)
        #expect(query.object == "Account" && query.alias == nil) // resolved into the paths
        #expect(query.selectedFields.map(\.description) == ["Id", "Name", "Industry"])
        #expect(query.orderBy == [OrderItem(field: FieldPath(["Name"]), direction: .descending, nulls: .last)])
        #expect(query.limit == 5)
        guard case .subquery(let subquery) = query.selectItems[3] else {
            Issue.record("expected a subquery")
            return
        }
        #expect(subquery.relationship == "Contacts")
        #expect(
            query.condition
                == .and([
                    .like(FieldPath(["Name"]), pattern: .string("Ac%", likePattern: "Ac%")),
                    .inList(FieldPath(["Industry"]), negated: false, values: [.string("Energy")]),
                ]))
        #expect(try SOQLParser.parse("SELECT COUNT() FROM Account").isCountOnly)
        #expect(
            try SOQLParser.parse("SELECT Id FROM Account WHERE Name <> null").condition
                == .comparison(FieldPath(["Name"]), .notEqual, .null))
        // Newlines are whitespace; keywords are case-insensitive.
        #expect(try SOQLParser.parse("SeLeCt\nId\nfrom\nAccount") == SOQLParser.parse("SELECT Id FROM Account"))
    }

    @Test func stringEscapes() throws {
        let query = try SOQLParser.parse(#"SELECT Id FROM Account WHERE Name = 'a\'b\"c\\d\ne\%f\_g' AND Name LIKE 'x\%y%'"#)
        guard case .and(let parts) = query.condition, case .comparison(_, _, .string(let value, _)) = parts[0],
            case .like(_, .string(let likeValue, let likePattern)) = parts[1]
        else {
            Issue.record("unexpected shape")
            return
        }
        #expect(value == "a'b\"c\\d\ne%f_g")
        #expect(likeValue == "x%y%")
        #expect(likePattern == #"x\%y%"#)
    }

    @Test func dateTimeFormats() throws {
        for literal in ["2017-03-21T12:11:06.000+0000", "2017-03-21T12:11:06Z", "2017-03-21T12:11:06+05:30", "2017-03-21T12:11:06.1-0800"] {
            let query = try SOQLParser.parse("SELECT Id FROM Account WHERE LastModifiedDate > \(literal)")
            #expect(query.condition == .comparison(FieldPath(["LastModifiedDate"]), .greaterThan, .dateTime(literal)))
        }
    }

    private func error(_ text: String) -> SOQLError? {
        do {
            _ = try SOQLParser.parse(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func syntaxErrorsCarryLineAndColumn() {
        #expect(
            error("SELEKT Name FROM Account")
                == SOQLError(.malformedQuery, "unexpected token: SELEKT", at: SourceLocation(line: 1, column: 1, offset: 0)))
        #expect(error("SELEKT Name FROM Account")?.salesforceMessage(for: "SELEKT Name FROM Account") == "unexpected token: SELEKT")
        let eof = error("SELECT Id FROM Account WHERE")
        #expect(eof?.message == "unexpected token: <EOF>")
        #expect(eof?.location?.column == 29)
        #expect(
            eof?.salesforceMessage(for: "SELECT Id FROM Account WHERE")
                == "\nSELECT Id FROM Account WHERE\n                            ^\nERROR at Row:1:Column:29\nunexpected token: <EOF>")
        let second = error("SELECT Id\nFROM Account\nWHERE Name = = 'x'")
        #expect(second?.location == SourceLocation(line: 3, column: 14, offset: 36))
        #expect(second?.code == .malformedQuery)
    }

    @Test(arguments: [
        "SELECT Id FROM Account WHERE A = 1 AND B = 2 OR C = 3",
        "SELECT Id FROM Account WHERE A = 1 OR B = 2 AND C = 3",
        "SELECT FROM Account",
        "SELECT Id FROM",
        "SELECT Id, FROM Account",
        "SELECT Id FROM Account WHERE Name = 'unterminated",
        "SELECT Id FROM Account WHERE Name = \"double\"",
        "SELECT Id FROM Account WHERE CreatedDate > 2024-1-02",
        "SELECT Id FROM Account WHERE CreatedDate > 2024-01-02T03:04",
        "SELECT Id FROM Account WHERE Name = 'bad \\q escape'",
        "SELECT Id FROM Account GROUP BY Name",
        "SELECT Id, COUNT() FROM Account",
        "SELECT Id, (SELECT Id FROM Contacts OFFSET 5) FROM Account",
        "SELECT Id FROM Account LIMIT -1",
        "SELECT Id FROM Account WHERE Name LIKE 5",
        "SELECT Id FROM Account WHERE CreatedDate = LAST_N_DAYS",
        "SELECT Id FROM Account WHERE CreatedDate = SOMEDAY",
        "SELECT Id FROM Account extra tokens",
        "SELECT Id FROM Account; DELETE FROM Account",
    ])
    func malformedQueries(_ text: String) {
        #expect(error(text)?.code == .malformedQuery)
    }

    @Test func mixingAndOrNeedsParentheses() throws {
        #expect(error("SELECT Id FROM Account WHERE A = 1 AND B = 2 OR C = 3")?.message.contains("parentheses") == true)
        #expect(throws: Never.self) { try SOQLParser.parse("SELECT Id FROM Account WHERE (A = 1 AND B = 2) OR C = 3") }
        #expect(throws: Never.self) { try SOQLParser.parse("SELECT Id FROM Account WHERE A = 1 AND (B = 2 OR C = 3) AND NOT D = 4") }
    }

    @Test func offsetAbove2000() {
        #expect(error("SELECT Id FROM Account LIMIT 5 OFFSET 2001")?.code == .numberOutsideValidRange)
    }

    @Test func dateLiteralRanges() throws {
        let formatter = ISO8601DateFormatter()
        func date(_ text: String) -> Date { formatter.date(from: text) ?? .distantPast }
        let now = date("2026-11-22T10:30:00Z") // a Sunday
        #expect(DateLiteral.today.range(relativeTo: now) == date("2026-11-22T00:00:00Z")..<date("2026-11-23T00:00:00Z"))
        #expect(DateLiteral.yesterday.range(relativeTo: now) == date("2026-11-21T00:00:00Z")..<date("2026-11-22T00:00:00Z"))
        #expect(DateLiteral.lastNDays(1).range(relativeTo: now) == date("2026-11-21T00:00:00Z")..<date("2026-11-23T00:00:00Z"))
        #expect(DateLiteral.last90Days.range(relativeTo: now).lowerBound == date("2026-08-24T00:00:00Z"))
        #expect(DateLiteral.nextNDays(2).range(relativeTo: now) == date("2026-11-23T00:00:00Z")..<date("2026-11-25T00:00:00Z"))
        #expect(DateLiteral.nDaysAgo(3).range(relativeTo: now) == date("2026-11-19T00:00:00Z")..<date("2026-11-20T00:00:00Z"))
        #expect(DateLiteral.thisWeek.range(relativeTo: now) == date("2026-11-22T00:00:00Z")..<date("2026-11-29T00:00:00Z"))
        #expect(DateLiteral.lastWeek.range(relativeTo: now) == date("2026-11-15T00:00:00Z")..<date("2026-11-22T00:00:00Z"))
        #expect(DateLiteral.thisMonth.range(relativeTo: now) == date("2026-11-01T00:00:00Z")..<date("2026-12-01T00:00:00Z"))
        #expect(DateLiteral.nextNMonths(2).range(relativeTo: now) == date("2026-12-01T00:00:00Z")..<date("2027-02-01T00:00:00Z"))
        #expect(DateLiteral.lastYear.range(relativeTo: now) == date("2025-01-01T00:00:00Z")..<date("2026-01-01T00:00:00Z"))
    }
}
