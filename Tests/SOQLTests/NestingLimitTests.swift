import SOQL
import Testing

/// Parsers stop at ``SOQLParser/maximumNesting`` levels, and the trees they build stay shallow
/// enough for everything that walks them (compilers, printers, deallocation).
@Suite struct NestingLimitTests {
    private func depth(_ expression: SearchExpression) -> Int {
        switch expression {
        case .term, .phrase: 1
        case .and(let operands), .or(let operands): 1 + (operands.map(depth).max() ?? 0)
        case .andNot(let left, let right): 1 + max(depth(left), depth(right))
        }
    }

    private func depth(_ condition: Condition) -> Int {
        switch condition {
        case .and(let operands), .or(let operands): 1 + (operands.map(depth).max() ?? 0)
        case .not(let inner), .group(let inner): 1 + depth(inner)
        case .inSubquery(_, _, let join): 1 + (join.condition.map(depth) ?? 0)
        default: 1
        }
    }

    private func isTooComplicated(_ body: () throws -> Void) -> Bool {
        do {
            try body()
            return false
        } catch {
            return (error as? SOQLError)?.code == .queryTooComplicated
        }
    }

    @Test func soqlNestingIsLimited() throws {
        let limit = SOQLParser.maximumNesting
        let deepNot = "SELECT Id FROM Account WHERE " + String(repeating: "NOT ", count: limit + 1) + "Name = 'x'"
        #expect(isTooComplicated { _ = try SOQLParser.parse(deepNot) })
        let deepGroup =
            "SELECT Id FROM Account WHERE " + String(repeating: "(", count: limit) + "Name = 'x'" + String(repeating: ")", count: limit)
        #expect(isTooComplicated { _ = try SOQLParser.parse(deepGroup) })
        // Just within the limit: parsed, and its tree as deep as the text's nesting allows.
        let within = "SELECT Id FROM Account WHERE " + String(repeating: "NOT ", count: limit - 1) + "Name = 'x'"
        let query = try SOQLParser.parse(within)
        #expect(depth(try #require(query.condition)) == limit)
        // A mix of groups, NOTs and semi-joins counts every level.
        let mixed =
            "SELECT Id FROM Account WHERE " + String(repeating: "(NOT Id IN (SELECT AccountId FROM Contact WHERE ", count: 40)
            + "LastName = 'x'" + String(repeating: "))", count: 40)
        #expect(isTooComplicated { _ = try SOQLParser.parse(mixed) })
    }

    @Test func soslNestingIsLimited() throws {
        let limit = SOQLParser.maximumNesting
        var nested = "a"
        for _ in 0..<(limit + 1) { nested = "a OR (\(nested))" }
        let andNots = "a" + String(repeating: " AND NOT b", count: 2 * limit)
        // Each group ends an AND NOT chain that wraps the group once more: shallow nesting, deep tree.
        var wrapped = "a"
        for level in 1..<limit { wrapped = "(\(wrapped))" + String(repeating: " AND NOT b c", count: limit - level) }
        for text in [nested, andNots, wrapped] {
            #expect(isTooComplicated { _ = try SOSLParser.parseSearchTerms(text) })
            #expect(isTooComplicated { _ = try SOSLParser.parse("FIND {\(text)}") })
        }
        // Whatever is accepted stays within twice the nesting limit.
        var alternating = "a"
        for _ in 0..<60 { alternating = "x AND NOT (\(alternating)) y" }
        let accepted = [
            "a" + String(repeating: " b AND NOT c", count: limit - 1), String(repeating: "w ", count: 5000), alternating,
            "a" + String(repeating: " AND NOT b", count: 2 * limit - 1),
        ]
        for text in accepted {
            let expression = try SOSLParser.parseSearchTerms(text)
            #expect(depth(expression) <= 2 * limit)
        }
    }

    @Test func dateLiteralNumbersAreBounded() {
        for literal in ["LAST_N_DAYS:1095001", "NEXT_N_WEEKS:156001", "LAST_N_MONTHS:36001", "N_DAYS_AGO:9223372036854775807"] {
            do {
                _ = try SOQLParser.parse("SELECT Id FROM Account WHERE CreatedDate = \(literal)")
                Issue.record("\(literal) parsed")
            } catch {
                #expect(error.code == .numberOutsideValidRange, "\(literal)")
            }
        }
        #expect(throws: SOQLError.self) {
            try SOQLParser.parse("SELECT Id FROM Account WHERE CreatedDate = LAST_N_DAYS:99999999999999999999")
        }
    }
}
