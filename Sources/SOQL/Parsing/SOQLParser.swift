/// Parses SOQL text into a ``Query``.
///
/// Errors are ``SOQLError``s with Salesforce's codes and a line/column:
/// `unexpected token: X` (`MALFORMED_QUERY`) for syntax, `NUMBER_OUTSIDE_VALID_RANGE` for an
/// OFFSET above 2000. As in Salesforce, AND and OR cannot be mixed at one level without
/// parentheses.
///
/// Nesting (parentheses, `NOT`, semi-joins) is limited to ``maximumNesting`` levels, so that no
/// query text can exhaust the stack of the parser or of what walks its result.
public enum SOQLParser {
    /// The deepest nesting of conditions accepted; deeper answers `QUERY_TOO_COMPLICATED`.
    public static let maximumNesting = 100

    /// Parses one SOQL query.
    public static func parse(_ text: String) throws(SOQLError) -> Query {
        var parser = TokenParser(tokens: try Lexer.tokens(text))
        let query = try parser.parseQuery()
        try parser.expectEnd()
        return query
    }
}

/// Keywords that cannot be used as an alias or where a value is expected.
private let reservedWords: Set<String> = [
    "SELECT", "FROM", "WHERE", "AND", "OR", "NOT", "IN", "LIKE", "INCLUDES", "EXCLUDES", "ORDER", "BY", "ASC", "DESC",
    "NULLS", "LIMIT", "OFFSET", "FOR", "GROUP", "HAVING", "WITH", "TYPEOF", "USING", "NULL", "TRUE", "FALSE",
]

/// The recursive-descent parser over a token array (shared with SOSL's RETURNING clauses).
struct TokenParser {
    let tokens: [Token]
    var position = 0
    /// How many conditions enclose the one being parsed.
    private var nesting = 0

    init(tokens: [Token]) {
        self.tokens = tokens
    }

    var current: Token { tokens[min(position, tokens.count - 1)] }

    func unexpected(_ token: Token? = nil) -> SOQLError {
        let token = token ?? current
        return SOQLError(.malformedQuery, "unexpected token: \(token.text)", at: token.location)
    }

    mutating func advance() { position = min(position + 1, tokens.count - 1) }

    func isKeyword(_ keyword: String) -> Bool { current.keyword == keyword }

    func isSymbol(_ symbol: String) -> Bool { current.kind == .symbol(symbol) }

    mutating func accept(_ keyword: String) -> Bool {
        guard isKeyword(keyword) else { return false }
        advance()
        return true
    }

    mutating func expect(_ keyword: String) throws(SOQLError) {
        guard accept(keyword) else { throw unexpected() }
    }

    mutating func expectSymbol(_ symbol: String) throws(SOQLError) {
        guard isSymbol(symbol) else { throw unexpected() }
        advance()
    }

    mutating func expectEnd() throws(SOQLError) {
        guard current.kind == .endOfInput else { throw unexpected() }
    }

    mutating func identifier() throws(SOQLError) -> String {
        guard case .word(let word) = current.kind, !reservedWords.contains(word.uppercased()) else { throw unexpected() }
        advance()
        return word
    }

    mutating func integer() throws(SOQLError) -> Int {
        guard case .number(let text) = current.kind, let value = Int(text), value >= 0 else { throw unexpected() }
        advance()
        return value
    }

    // MARK: - Query

    mutating func parseQuery() throws(SOQLError) -> Query {
        guard isKeyword("SELECT") else { throw SOQLError(.malformedQuery, "unexpected token: \(current.text)", at: current.location) }
        advance()
        let items = try selectList()
        try expect("FROM")
        let object = try identifier()
        var alias: String?
        if case .word(let word) = current.kind, !reservedWords.contains(word.uppercased()) {
            alias = word
            advance()
        }
        var query = Query(selectItems: items, object: object, alias: alias)
        if accept("WHERE") { query.condition = try condition() }
        if isKeyword("ORDER") { query.orderBy = try orderBy() }
        if accept("LIMIT") { query.limit = try integer() }
        if isKeyword("OFFSET") {
            let location = current.location
            advance()
            let offset = try integer()
            guard offset <= 2000 else {
                throw SOQLError(.numberOutsideValidRange, "Maximum SOQL offset allowed is 2000", at: location)
            }
            query.offset = offset
        }
        if accept("FOR") {
            guard let keyword = current.keyword, let clause = ForClause(rawValue: keyword) else { throw unexpected() }
            advance()
            query.forClause = clause
        }
        if items.contains(.count(nil)), items.count > 1 {
            throw SOQLError(.malformedQuery, "COUNT() must be the only element in the SELECT list", at: tokens[1].location)
        }
        return query.strippingQualifier()
    }

    private mutating func selectList() throws(SOQLError) -> [SelectItem] {
        var items: [SelectItem] = []
        repeat {
            if isSymbol("(") {
                advance()
                items.append(.subquery(try subquery()))
                try expectSymbol(")")
            } else if isKeyword("COUNT"), tokens[position + 1].kind == .symbol("(") {
                advance()
                advance()
                if isSymbol(")") {
                    advance()
                    items.append(.count(nil))
                } else {
                    items.append(.count(try fieldPath()))
                    try expectSymbol(")")
                }
            } else {
                items.append(.field(try fieldPath()))
            }
        } while acceptSymbol(",")
        return items
    }

    mutating func acceptSymbol(_ symbol: String) -> Bool {
        guard isSymbol(symbol) else { return false }
        advance()
        return true
    }

    private mutating func subquery() throws(SOQLError) -> Subquery {
        try expect("SELECT")
        var fields: [FieldPath] = []
        repeat { fields.append(try fieldPath()) } while acceptSymbol(",")
        try expect("FROM")
        var result = Subquery(fields: fields, relationship: try identifier())
        if accept("WHERE") { result.condition = try condition() }
        if isKeyword("ORDER") { result.orderBy = try orderBy() }
        if accept("LIMIT") { result.limit = try integer() }
        if isKeyword("OFFSET") { throw unexpected() }
        return result
    }

    mutating func fieldPath() throws(SOQLError) -> FieldPath {
        let location = current.location
        var components = [try identifier()]
        while isSymbol(".") {
            advance()
            guard case .word(let word) = current.kind else { throw unexpected() }
            advance()
            components.append(word)
        }
        return FieldPath(components, at: location)
    }

    mutating func orderBy() throws(SOQLError) -> [OrderItem] {
        try expect("ORDER")
        try expect("BY")
        var items: [OrderItem] = []
        repeat {
            var item = OrderItem(field: try fieldPath())
            if accept("ASC") { item.direction = .ascending } else if accept("DESC") { item.direction = .descending }
            if accept("NULLS") {
                if accept("FIRST") { item.nulls = .first } else if accept("LAST") { item.nulls = .last } else { throw unexpected() }
            }
            items.append(item)
        } while acceptSymbol(",")
        return items
    }

    // MARK: - Conditions

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

    private mutating func unary() throws(SOQLError) -> Condition {
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

    private mutating func predicate() throws(SOQLError) -> Condition {
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

    private mutating func stringList() throws(SOQLError) -> [String] {
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
}

extension Query {
    /// Removes a leading alias or object name from field paths (`a.Name` or `Account.Name` → `Name`).
    func strippingQualifier() -> Query {
        var qualifiers = [object.lowercased()]
        if let alias { qualifiers.append(alias.lowercased()) }
        func strip(_ path: FieldPath) -> FieldPath {
            guard path.components.count > 1, qualifiers.contains(path.components[0].lowercased()) else { return path }
            return FieldPath(Array(path.components.dropFirst()), at: path.location)
        }
        var query = self
        query.selectItems = selectItems.map { item in
            switch item {
            case .field(let path): .field(strip(path))
            case .count(let path?): .count(strip(path))
            default: item
            }
        }
        query.condition = condition.map { $0.mapFields(strip) }
        query.orderBy = orderBy.map { OrderItem(field: strip($0.field), direction: $0.direction, nulls: $0.nulls) }
        return query
    }
}

extension Condition {
    /// The same condition with every top-level field path transformed (semi-join inner queries untouched).
    public func mapFields(_ transform: (FieldPath) -> FieldPath) -> Condition {
        switch self {
        case .and(let operands): .and(operands.map { $0.mapFields(transform) })
        case .or(let operands): .or(operands.map { $0.mapFields(transform) })
        case .not(let inner): .not(inner.mapFields(transform))
        case .group(let inner): .group(inner.mapFields(transform))
        case .comparison(let path, let op, let value): .comparison(transform(path), op, value)
        case .like(let path, let pattern): .like(transform(path), pattern: pattern)
        case .inList(let path, let negated, let values): .inList(transform(path), negated: negated, values: values)
        case .inSubquery(let path, let negated, let subquery): .inSubquery(transform(path), negated: negated, subquery: subquery)
        case .includes(let path, let excludes, let values): .includes(transform(path), excludes: excludes, values: values)
        }
    }
}
