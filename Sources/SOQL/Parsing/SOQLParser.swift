/// Parses SOQL text into a ``Query``: the whole documented language — functions and aliases,
/// aggregates with GROUP BY (ROLLUP, CUBE) and HAVING, date functions, `TYPEOF`, `FIELDS()`,
/// `toLabel`/`FORMAT`/`convertCurrency`, `USING SCOPE`, the `WITH` clauses (`SECURITY_ENFORCED`,
/// `USER_MODE`, `SYSTEM_MODE`, `DATA CATEGORY`, …), `FOR VIEW/REFERENCE/UPDATE`, `UPDATE
/// TRACKING/VIEWSTAT`, `NULLS FIRST/LAST`, semi-joins and relationship aliases in FROM.
///
/// Errors are ``SOQLError``s with Salesforce's codes and a line/column:
/// `unexpected token: X` (`MALFORMED_QUERY`) for syntax, `NUMBER_OUTSIDE_VALID_RANGE` for an
/// OFFSET above 2000. As in Salesforce, AND and OR cannot be mixed at one level without
/// parentheses. Printing a query (its `description`) and parsing the text gives the same query.
///
/// Nesting (parentheses, `NOT`, semi-joins) is limited to ``maximumNesting`` levels, so that no
/// query text can exhaust the stack of the parser or of what walks its result. A statement is
/// at most ``maximumLength`` characters (Salesforce's limit, with its `MALFORMED_QUERY`) and
/// holds at most ``maximumPredicates`` predicates, ``maximumSelectItems`` fields in a SELECT list
/// and ``maximumOrderKeys`` ORDER BY keys (`QUERY_TOO_COMPLICATED` beyond), so that no short
/// statement buys a long plan from the database that runs it.
public enum SOQLParser {
    /// The deepest nesting of conditions accepted; deeper answers `QUERY_TOO_COMPLICATED`.
    public static let maximumNesting = 100
    /// The longest statement accepted, in characters (UTF-16 code units), as in Salesforce.
    public static let maximumLength = 100_000
    /// The most predicates (`field = value`, `field IN (…)`, `field LIKE …`, …) one statement may
    /// hold, its semi-joins included; an `IN` list counts once, whatever its length.
    public static let maximumPredicates = 2_000
    /// The most fields one SELECT list may name (`QUERY_TOO_COMPLICATED`, "selecting too many fields", beyond).
    public static let maximumSelectItems = 1_000
    /// The most keys of one ORDER BY (Salesforce's 32).
    public static let maximumOrderKeys = 32

    /// Parses one SOQL query.
    public static func parse(_ text: String) throws(SOQLError) -> Query {
        try checkLength(text, of: "SOQL")
        var parser = TokenParser(tokens: try Lexer.tokens(text))
        let query = try parser.parseQuery()
        try parser.expectEnd()
        return query
    }

    /// Salesforce's refusal of a statement over ``maximumLength`` characters.
    static func checkLength(_ text: String, of language: String) throws(SOQLError) {
        guard text.utf16.count <= maximumLength else {
            throw SOQLError(.malformedQuery, "\(language) statements can not be longer than \(maximumLength) characters.")
        }
    }
}

/// Keywords that cannot be used as an identifier, an alias, or where a value is expected.
let reservedWords: Set<String> = [
    "SELECT", "FROM", "WHERE", "AND", "OR", "NOT", "IN", "LIKE", "INCLUDES", "EXCLUDES", "ORDER", "BY", "ASC", "DESC",
    "NULLS", "LIMIT", "OFFSET", "FOR", "GROUP", "HAVING", "WITH", "TYPEOF", "USING", "NULL", "TRUE", "FALSE",
]

/// Words that start a clause after FROM or a SELECT item, so they are never taken as aliases.
let clauseWords: Set<String> = reservedWords.union(["UPDATE", "WHEN", "THEN", "ELSE", "END"])

/// The recursive-descent parser over a token array (shared with SOSL's RETURNING clauses).
struct TokenParser {
    let tokens: [Token]
    var position = 0
    /// How many conditions enclose the one being parsed.
    var nesting = 0
    /// The predicates parsed so far (bounded by ``SOQLParser/maximumPredicates``).
    var predicates = 0

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

    /// The token after the current one.
    var next: Token { tokens[min(position + 1, tokens.count - 1)] }

    /// A word that may be an alias here (not a keyword that starts a clause).
    var aliasWord: String? {
        guard case .word(let word) = current.kind, !clauseWords.contains(word.uppercased()) else { return nil }
        return word
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
        var query = Query(selectItems: items, object: try identifier())
        if let alias = aliasWord {
            query.alias = alias
            advance()
        }
        while acceptSymbol(",") {
            let path = try fieldPath()
            guard let alias = aliasWord else { throw unexpected() }
            advance()
            query.fromRelationships.append(FromRelationship(path: path, alias: alias))
        }
        if accept("USING") {
            try expect("SCOPE")
            query.scope = try identifier()
        }
        if accept("WHERE") { query.condition = try condition() }
        while accept("WITH") { query.with.append(try withClause()) }
        if accept("GROUP") { query.groupBy = try groupBy() }
        if accept("HAVING") { query.having = try condition() }
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
        if isKeyword("FOR"), next.keyword != "UPDATE" { query.forClause = try forClause() }
        if accept("UPDATE") {
            guard let keyword = current.keyword, let clause = UpdateClause(rawValue: keyword) else { throw unexpected() }
            advance()
            query.update = clause
        }
        // After UPDATE TRACKING/VIEWSTAT, only FOR UPDATE may follow.
        if query.forClause == nil, isKeyword("FOR"), next.keyword == "UPDATE" { query.forClause = try forClause() }
        try checkSelectList(items)
        let stripped = query.strippingQualifier()
        if stripped.isAggregate { try checkGrouping(stripped) }
        if !query.isAggregate, let aliased = items.first(where: { if case .aliasedField = $0 { true } else { false } }) {
            throw SOQLError(.malformedQuery, "Only aggregate expressions use field aliasing", at: aliasedLocation(aliased))
        }
        return stripped
    }

    /// In an aggregate query every item of the SELECT list is an aggregate, or is grouped by
    /// (a field or date function of the GROUP BY, or a function of grouped fields only, such
    /// as `toLabel(Status)`): Salesforce's `Field must be grouped or aggregated`.
    private func checkGrouping(_ query: Query) throws(SOQLError) {
        let grouped = Set((query.groupBy?.items ?? []).map { $0.description.lowercased() })
        func isGrouped(_ path: FieldPath) -> Bool { grouped.contains(path.description.lowercased()) }
        for item in query.selectItems {
            switch item {
            case .field(let path), .aliasedField(let path, _):
                guard isGrouped(path) else {
                    throw SOQLError(.malformedQuery, "Field must be grouped or aggregated: \(path)", at: path.location)
                }
            case .function(let call, _):
                guard call.containsAggregate || grouped.contains(call.description.lowercased()) || call.fieldPaths.allSatisfy(isGrouped)
                else {
                    throw SOQLError(.malformedQuery, "Field must be grouped or aggregated: \(call)", at: call.fieldPaths.first?.location)
                }
            case .subquery, .typeOf, .fields, .countAll:
                throw SOQLError(.malformedQuery, "Field must be grouped or aggregated: \(item)")
            }
        }
        if let having = query.having { try checkGrouping(having, isGrouped: isGrouped, grouped: grouped) }
    }

    /// HAVING compares aggregates, and fields (or functions of fields) that are grouped.
    private func checkGrouping(_ condition: Condition, isGrouped: (FieldPath) -> Bool, grouped: Set<String>) throws(SOQLError) {
        func require(_ path: FieldPath) throws(SOQLError) {
            guard isGrouped(path) else {
                throw SOQLError(.malformedQuery, "Field must be grouped or aggregated: \(path)", at: path.location)
            }
        }
        switch condition {
        case .and(let operands), .or(let operands):
            for operand in operands { try checkGrouping(operand, isGrouped: isGrouped, grouped: grouped) }
        case .not(let inner), .group(let inner): try checkGrouping(inner, isGrouped: isGrouped, grouped: grouped)
        case .comparison(let path, _, _), .like(let path, _), .inList(let path, _, _), .includes(let path, _, _):
            try require(path)
        case .inSubquery(let path, _, _):
            try require(path)
        case .functionComparison(let call, _, _), .functionInList(let call, _, _):
            guard call.containsAggregate || grouped.contains(call.description.lowercased()) || call.fieldPaths.allSatisfy(isGrouped) else {
                throw SOQLError(.malformedQuery, "Field must be grouped or aggregated: \(call)", at: call.fieldPaths.first?.location)
            }
        }
    }

    private mutating func forClause() throws(SOQLError) -> ForClause {
        try expect("FOR")
        guard let keyword = current.keyword, let clause = ForClause(rawValue: keyword) else { throw unexpected() }
        advance()
        return clause
    }

    private func aliasedLocation(_ item: SelectItem) -> SourceLocation? {
        if case .aliasedField(let path, _) = item { return path.location }
        return nil
    }

    /// `GROUP BY` items, or `ROLLUP(…)` / `CUBE(…)`.
    private mutating func groupBy() throws(SOQLError) -> GroupBy {
        try expect("BY")
        var kind = GroupBy.Kind.plain
        if let keyword = current.keyword, keyword == "ROLLUP" || keyword == "CUBE", next.kind == .symbol("(") {
            kind = keyword == "ROLLUP" ? .rollup : .cube
            advance()
            advance()
        }
        var items: [FieldExpression] = []
        repeat { items.append(try expression()) } while acceptSymbol(",")
        if kind != .plain { try expectSymbol(")") }
        return GroupBy(kind: kind, items: items)
    }

    /// What follows `WITH`.
    private mutating func withClause() throws(SOQLError) -> WithClause {
        guard case .word(let word) = current.kind else { throw unexpected() }
        switch word.uppercased() {
        case "SECURITY_ENFORCED":
            advance()
            return .securityEnforced
        case "USER_MODE":
            advance()
            return .userMode
        case "SYSTEM_MODE":
            advance()
            return .systemMode
        case "DATA" where next.keyword == "CATEGORY":
            advance()
            advance()
            var filters: [DataCategoryFilter] = []
            repeat { filters.append(try dataCategoryFilter()) } while accept("AND")
            return .dataCategory(filters)
        default:
            advance()
            if isSymbol("=") {
                advance()
                return .equals(word, try value())
            }
            try expectSymbol("(")
            var parameters: [WithClause.Parameter] = []
            repeat {
                let name = try identifier()
                try expectSymbol("=")
                parameters.append(WithClause.Parameter(name: name, value: try value()))
            } while acceptSymbol(",")
            try expectSymbol(")")
            return .parameters(word, parameters)
        }
    }

    private mutating func dataCategoryFilter() throws(SOQLError) -> DataCategoryFilter {
        let group = try identifier()
        guard let keyword = current.keyword, let selector = DataCategoryFilter.Selector(rawValue: keyword) else { throw unexpected() }
        advance()
        var categories: [String] = []
        if acceptSymbol("(") {
            repeat { categories.append(try identifier()) } while acceptSymbol(",")
            try expectSymbol(")")
        } else {
            categories.append(try identifier())
        }
        return DataCategoryFilter(group: group, selector: selector, categories: categories)
    }

    mutating func orderBy() throws(SOQLError) -> [OrderItem] {
        try expect("ORDER")
        try expect("BY")
        var items: [OrderItem] = []
        repeat {
            var item = OrderItem(expression: try expression())
            if accept("ASC") { item.direction = .ascending } else if accept("DESC") { item.direction = .descending }
            if accept("NULLS") {
                if accept("FIRST") { item.nulls = .first } else if accept("LAST") { item.nulls = .last } else { throw unexpected() }
            }
            items.append(item)
            guard items.count <= SOQLParser.maximumOrderKeys else { throw SOQLError.tooComplicated(at: current.location) }
        } while acceptSymbol(",")
        return items
    }

    mutating func acceptSymbol(_ symbol: String) -> Bool {
        guard isSymbol(symbol) else { return false }
        advance()
        return true
    }
}
