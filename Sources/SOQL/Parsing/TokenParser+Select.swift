/// SELECT lists: fields, functions with aliases, `COUNT()`, subqueries, `TYPEOF`, `FIELDS()`.
extension TokenParser {
    mutating func selectList() throws(SOQLError) -> [SelectItem] {
        var items: [SelectItem] = []
        repeat {
            items.append(try selectItem())
            guard items.count <= SOQLParser.maximumSelectItems else { throw SOQLError.tooComplicated(at: current.location) }
        } while acceptSymbol(",")
        return items
    }

    /// `COUNT()` alone.
    func checkSelectList(_ items: [SelectItem]) throws(SOQLError) {
        if items.contains(.countAll), items.count > 1 {
            throw SOQLError(.malformedQuery, "COUNT() must be the only element in the SELECT list", at: tokens[1].location)
        }
    }

    private mutating func selectItem() throws(SOQLError) -> SelectItem {
        if isSymbol("(") {
            advance()
            let subquery = try self.subquery()
            try expectSymbol(")")
            return .subquery(subquery)
        }
        if isKeyword("TYPEOF") { return .typeOf(try typeOf()) }
        if isKeyword("FIELDS"), next.kind == .symbol("(") {
            advance()
            advance()
            guard let keyword = current.keyword, let selector = FieldsSelector(rawValue: keyword) else { throw unexpected() }
            advance()
            try expectSymbol(")")
            return .fields(selector)
        }
        if isKeyword("COUNT"), next.kind == .symbol("("), tokens[min(position + 2, tokens.count - 1)].kind == .symbol(")") {
            advance()
            advance()
            advance()
            return .countAll
        }
        if isFunctionStart {
            let call = try functionCall()
            let alias = aliasWord
            if alias != nil { advance() }
            return .function(call, alias: alias)
        }
        let path = try fieldPath()
        if let alias = aliasWord {
            advance()
            return .aliasedField(path, alias: alias)
        }
        return .field(path)
    }

    /// A subquery's SELECT list takes what the outer one does but subqueries and `COUNT()`.
    private mutating func subquery() throws(SOQLError) -> Subquery {
        try expect("SELECT")
        var items: [SelectItem] = []
        repeat {
            // Refused before anything nested is parsed: a subquery cannot hold one.
            if isSymbol("(")
                || (isKeyword("COUNT") && next.kind == .symbol("(") && tokens[min(position + 2, tokens.count - 1)].kind == .symbol(")"))
            {
                throw unexpected()
            }
            let token = current
            let item = try selectItem()
            if case .aliasedField = item {
                throw SOQLError(.malformedQuery, "Only aggregate expressions use field aliasing", at: token.location)
            }
            items.append(item)
            guard items.count <= SOQLParser.maximumSelectItems else { throw SOQLError.tooComplicated(at: current.location) }
        } while acceptSymbol(",")
        try expect("FROM")
        var result = Subquery(items: items, relationship: try identifier())
        if accept("WHERE") { result.condition = try condition() }
        if isKeyword("ORDER") { result.orderBy = try orderBy() }
        if accept("LIMIT") { result.limit = try integer() }
        if isKeyword("OFFSET") { throw unexpected() }
        return result
    }

    /// `TYPEOF What WHEN Account THEN Phone, Name … [ELSE Name] END`.
    private mutating func typeOf() throws(SOQLError) -> TypeOf {
        try expect("TYPEOF")
        let relationship = try identifier()
        var branches: [TypeOf.Branch] = []
        while accept("WHEN") {
            let object = try identifier()
            try expect("THEN")
            branches.append(TypeOf.Branch(object: object, fields: try typeOfFields()))
        }
        guard !branches.isEmpty else { throw unexpected() }
        var elseFields: [FieldPath] = []
        if accept("ELSE") { elseFields = try typeOfFields() }
        try expect("END")
        return TypeOf(relationship: relationship, branches: branches, elseFields: elseFields)
    }

    private mutating func typeOfFields() throws(SOQLError) -> [FieldPath] {
        var fields = [try fieldPath()]
        while isSymbol(","), let keyword = next.keyword, !["WHEN", "ELSE", "END"].contains(keyword) {
            advance()
            fields.append(try fieldPath())
        }
        return fields
    }

    /// Whether a function call starts here: a function's name, then `(`.
    var isFunctionStart: Bool {
        guard case .word(let word) = current.kind, next.kind == .symbol("(") else { return false }
        return FunctionKind(name: word) != nil
    }

    /// A field, or a function of fields (GROUP BY, ORDER BY).
    mutating func expression() throws(SOQLError) -> FieldExpression {
        isFunctionStart ? .function(try functionCall()) : .field(try fieldPath())
    }

    /// `name(arguments)`, arguments being fields, nested calls, numbers or strings.
    mutating func functionCall() throws(SOQLError) -> FunctionCall {
        guard nesting < SOQLParser.maximumNesting else { throw SOQLError.tooComplicated(at: current.location) }
        let start = current
        guard case .word(let name) = start.kind, let kind = FunctionKind(name: name) else { throw unexpected() }
        advance()
        try expectSymbol("(")
        var arguments: [FunctionArgument] = []
        if !isSymbol(")") {
            // Nested calls count toward the nesting limit, as nested conditions do.
            nesting += 1
            defer { nesting -= 1 }
            repeat { arguments.append(try functionArgument()) } while acceptSymbol(",")
        }
        try expectSymbol(")")
        let call = FunctionCall(name, arguments)
        try check(call, kind: kind, at: start)
        return call
    }

    private mutating func functionArgument() throws(SOQLError) -> FunctionArgument {
        switch current.kind {
        case .number, .string: return .literal(try value())
        default: return isFunctionStart ? .function(try functionCall()) : .field(try fieldPath())
        }
    }

    /// The number and kind of arguments each function takes.
    private func check(_ call: FunctionCall, kind: FunctionKind, at token: Token) throws(SOQLError) {
        let arguments = call.arguments
        let isField = { (argument: FunctionArgument) -> Bool in if case .field = argument { true } else { false } }
        let isCall = { (argument: FunctionArgument) -> Bool in if case .function = argument { true } else { false } }
        let valid: Bool
        switch kind {
        case .count: valid = arguments.count == 1 && isField(arguments[0])
        case .countDistinct, .avg, .sum, .min, .max, .grouping, .toLabel, .convertCurrency:
            valid = arguments.count == 1 && isField(arguments[0])
        case .format: valid = arguments.count == 1 && (isField(arguments[0]) || isCall(arguments[0]))
        case .convertTimezone: valid = arguments.count == 1 && isField(arguments[0])
        case .distance:
            let unit = { () -> Bool in if case .literal(.string(let text, _)) = arguments[2] { ["mi", "km"].contains(text) } else { false }
            }
            valid =
                arguments.count == 3 && (isField(arguments[0]) || isCall(arguments[0])) && (isField(arguments[1]) || isCall(arguments[1]))
                && unit()
        case .geolocation:
            valid = arguments.count == 2 && arguments.allSatisfy { if case .literal(.number) = $0 { true } else { false } }
        default:
            // Date functions: a field, or convertTimezone(field).
            valid = arguments.count == 1 && (isField(arguments[0]) || isCall(arguments[0]))
        }
        guard valid else {
            throw SOQLError(.malformedQuery, "wrong number or kind of arguments for \(call.name)()", at: token.location)
        }
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
}
