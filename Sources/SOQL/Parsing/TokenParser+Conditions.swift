/// Conditions (WHERE, HAVING, semi-joins) and values.
extension TokenParser {

    mutating func condition() throws(SOQLError) -> Condition {
        let first = try unary()
        guard let joiner = current.keyword, joiner == "AND" || joiner == "OR" else { return first }
        var operands = [first]
        while let keyword = current.keyword, keyword == "AND" || keyword == "OR" {
            guard keyword == joiner else {
                throw SOQLError(
                    .malformedQuery, "unexpected token: \(current.text) (parentheses are required when mixing AND and OR)",
                    at: current.location)
            }
            advance()
            operands.append(try unary())
        }
        return joiner == "AND" ? .and(operands) : .or(operands)
    }

    mutating func unary() throws(SOQLError) -> Condition {
        guard nesting < SOQLParser.maximumNesting else { throw SOQLError.tooComplicated(at: current.location) }
        nesting += 1
        defer { nesting -= 1 }
        if accept("NOT") { return .not(try unary()) }
        if isSymbol("(") {
            advance()
            let inner = try condition()
            try expectSymbol(")")
            return .group(inner)
        }
        return try predicate()
    }

    mutating func predicate() throws(SOQLError) -> Condition {
        predicates += 1
        guard predicates <= SOQLParser.maximumPredicates else { throw SOQLError.tooComplicated(at: current.location) }
        if isFunctionStart {
            let call = try functionCall()
            if case .symbol(let symbol) = current.kind {
                let normalized = symbol == "<>" ? "!=" : symbol
                guard let op = ComparisonOperator(rawValue: normalized) else { throw unexpected() }
                advance()
                return .functionComparison(call, op, try value())
            }
            let negated = accept("NOT")
            try expect("IN")
            try expectSymbol("(")
            var values: [Literal] = []
            repeat { values.append(try value()) } while acceptSymbol(",")
            try expectSymbol(")")
            return .functionInList(call, negated: negated, values: values)
        }
        let field = try fieldPath()
        if case .symbol(let symbol) = current.kind {
            let normalized = symbol == "<>" ? "!=" : symbol
            guard let op = ComparisonOperator(rawValue: normalized) else { throw unexpected() }
            advance()
            return .comparison(field, op, try value())
        }
        if accept("LIKE") {
            guard case .string = current.kind else { throw unexpected() }
            return .like(field, pattern: try value())
        }
        if accept("INCLUDES") { return .includes(field, excludes: false, values: try stringList()) }
        if accept("EXCLUDES") { return .includes(field, excludes: true, values: try stringList()) }
        let negated = accept("NOT")
        try expect("IN")
        try expectSymbol("(")
        if accept("SELECT") {
            let inner = try fieldPath()
            try expect("FROM")
            var join = SemiJoin(field: inner, object: try identifier(), condition: nil)
            if accept("WHERE") { join.condition = try condition() }
            try expectSymbol(")")
            return .inSubquery(field, negated: negated, subquery: join)
        }
        var values: [Literal] = []
        repeat { values.append(try value()) } while acceptSymbol(",")
        try expectSymbol(")")
        return .inList(field, negated: negated, values: values)
    }

    mutating func stringList() throws(SOQLError) -> [String] {
        try expectSymbol("(")
        var values: [String] = []
        repeat {
            guard case .string(let value, _) = current.kind else { throw unexpected() }
            advance()
            values.append(value)
        } while acceptSymbol(",")
        try expectSymbol(")")
        return values
    }

    mutating func value() throws(SOQLError) -> Literal {
        let token = current
        switch token.kind {
        case .string(let value, let like):
            advance()
            return .string(value, likePattern: like)
        case .number(let number):
            advance()
            return .number(number)
        case .date(let date):
            advance()
            return .date(date)
        case .dateTime(let dateTime):
            advance()
            return .dateTime(dateTime)
        case .word(let word):
            let upper = word.uppercased()
            switch upper {
            case "NULL":
                advance()
                return .null
            case "TRUE":
                advance()
                return .boolean(true)
            case "FALSE":
                advance()
                return .boolean(false)
            default: break
            }
            if let amount = currencyAmount(word) {
                advance()
                return .currency(amount)
            }
            if let literal = DateLiteral.named(upper) {
                advance()
                return .dateLiteral(literal)
            }
            if DateLiteral.takesNumber(upper) {
                advance()
                try expectSymbol(":")
                let numberToken = current
                let number = try integer()
                let maximum = DateLiteral.maximumNumber(upper)
                guard number <= maximum else {
                    throw SOQLError(.numberOutsideValidRange, "\(upper):n accepts n up to \(maximum)", at: numberToken.location)
                }
                guard let literal = DateLiteral.named(upper, number: number) else { throw unexpected(token) }
                return .dateLiteral(literal)
            }
            throw unexpected()
        default:
            throw unexpected()
        }
    }

    /// `USD5000` or `USD5000.50` (an ISO code, digits, optionally a fraction that the lexer
    /// reads as `.` and a number right after the word).
    private mutating func currencyAmount(_ word: String) -> String? {
        let bytes = Array(word.utf8)
        guard bytes.count > 3, bytes.prefix(3).allSatisfy({ ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) }),
            bytes.dropFirst(3).allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
        else { return nil }
        let end = current.location.offset + bytes.count
        if next.kind == .symbol("."), next.location.offset == end,
            case .number(let fraction) = tokens[min(position + 2, tokens.count - 1)].kind,
            tokens[min(position + 2, tokens.count - 1)].location.offset == end + 1, fraction.allSatisfy(\.isNumber)
        {
            advance()
            advance()
            return word + "." + fraction
        }
        return word
    }
}
