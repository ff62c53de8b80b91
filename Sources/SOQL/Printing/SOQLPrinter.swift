/// Prints the AST back to SOQL text. Parsing the printed text gives the same AST.
extension Query: CustomStringConvertible {
    /// The query as SOQL text, keywords upper-case; parsing it gives the same query.
    public var description: String {
        var text = "SELECT " + selectItems.map(\.description).joined(separator: ", ") + " FROM " + object
        if let alias { text += " " + alias }
        for relationship in fromRelationships { text += ", \(relationship.path) \(relationship.alias)" }
        if let scope { text += " USING SCOPE " + scope }
        if let condition { text += " WHERE " + condition.description }
        for clause in with { text += " WITH " + clause.description }
        if let groupBy { text += " GROUP BY " + groupBy.description }
        if let having { text += " HAVING " + having.description }
        if !orderBy.isEmpty { text += " ORDER BY " + orderBy.map(\.description).joined(separator: ", ") }
        if let limit { text += " LIMIT \(limit)" }
        if let offset { text += " OFFSET \(offset)" }
        if let forClause, forClause != .update { text += " FOR " + forClause.rawValue }
        if let update { text += " UPDATE " + update.rawValue }
        if forClause == .update { text += " FOR UPDATE" }
        return text
    }
}

extension SelectItem: CustomStringConvertible {
    /// The item as SOQL text.
    public var description: String {
        switch self {
        case .field(let path): path.description
        case .aliasedField(let path, let alias): "\(path) \(alias)"
        case .function(let call, let alias): call.description + (alias.map { " " + $0 } ?? "")
        case .subquery(let subquery): "(" + subquery.description + ")"
        case .countAll: "COUNT()"
        case .typeOf(let typeOf): typeOf.description
        case .fields(let selector): "FIELDS(\(selector.rawValue))"
        }
    }
}

extension FunctionCall: CustomStringConvertible {
    /// The call as SOQL text, its name as written.
    public var description: String {
        name + "("
            + arguments.map { argument in
                switch argument {
                case .field(let path): path.description
                case .function(let call): call.description
                case .literal(let literal): literal.description
                }
            }.joined(separator: ", ") + ")"
    }
}

extension FieldExpression: CustomStringConvertible {
    /// The field or the call as SOQL text.
    public var description: String {
        switch self {
        case .field(let path): path.description
        case .function(let call): call.description
        }
    }
}

extension TypeOf: CustomStringConvertible {
    /// `TYPEOF … WHEN … THEN … ELSE … END`.
    public var description: String {
        var text = "TYPEOF " + relationship
        for branch in branches { text += " WHEN \(branch.object) THEN " + branch.fields.map(\.description).joined(separator: ", ") }
        if !elseFields.isEmpty { text += " ELSE " + elseFields.map(\.description).joined(separator: ", ") }
        return text + " END"
    }
}

extension GroupBy: CustomStringConvertible {
    /// The items, inside `ROLLUP(…)` or `CUBE(…)` when so grouped.
    public var description: String {
        let items = items.map(\.description).joined(separator: ", ")
        return kind == .plain ? items : "\(kind.rawValue)(\(items))"
    }
}

extension WithClause: CustomStringConvertible {
    /// The clause as SOQL text, without `WITH`.
    public var description: String {
        switch self {
        case .securityEnforced: "SECURITY_ENFORCED"
        case .userMode: "USER_MODE"
        case .systemMode: "SYSTEM_MODE"
        case .dataCategory(let filters):
            "DATA CATEGORY "
                + filters.map { filter in
                    let categories =
                        filter.categories.count == 1 ? filter.categories[0] : "(" + filter.categories.joined(separator: ", ") + ")"
                    return "\(filter.group) \(filter.selector.rawValue) \(categories)"
                }.joined(separator: " AND ")
        case .parameters(let name, let parameters):
            name + " (" + parameters.map { "\($0.name)=\($0.value)" }.joined(separator: ", ") + ")"
        case .equals(let name, let value): "\(name) = \(value)"
        }
    }
}

extension Subquery: CustomStringConvertible {
    /// The subquery as SOQL text, without its parentheses.
    public var description: String {
        var text = "SELECT " + items.map(\.description).joined(separator: ", ") + " FROM " + relationship
        if let condition { text += " WHERE " + condition.description }
        if !orderBy.isEmpty { text += " ORDER BY " + orderBy.map(\.description).joined(separator: ", ") }
        if let limit { text += " LIMIT \(limit)" }
        return text
    }
}

extension OrderItem: CustomStringConvertible {
    /// The item as SOQL text (`Name DESC NULLS LAST`), only the parts written.
    public var description: String {
        var text = expression.description
        if let direction { text += " " + direction.rawValue }
        if let nulls { text += " NULLS " + nulls.rawValue }
        return text
    }
}

extension Condition: CustomStringConvertible {
    /// The condition as SOQL text, grouping kept where it was written.
    public var description: String {
        switch self {
        case .and(let operands): operands.map(\.description).joined(separator: " AND ")
        case .or(let operands): operands.map(\.description).joined(separator: " OR ")
        case .not(let inner): "NOT " + inner.description
        case .group(let inner): "(" + inner.description + ")"
        case .comparison(let path, let op, let value): "\(path) \(op.rawValue) \(value)"
        case .like(let path, let pattern): "\(path) LIKE \(pattern.likeDescription)"
        case .inList(let path, let negated, let values):
            "\(path) \(negated ? "NOT IN" : "IN") (" + values.map(\.description).joined(separator: ", ") + ")"
        case .inSubquery(let path, let negated, let join):
            "\(path) \(negated ? "NOT IN" : "IN") (SELECT \(join.field) FROM \(join.object)"
                + (join.condition.map { " WHERE " + $0.description } ?? "") + ")"
        case .includes(let path, let excludes, let values):
            "\(path) \(excludes ? "EXCLUDES" : "INCLUDES") (" + values.map { Literal.quote($0) }.joined(separator: ", ") + ")"
        case .functionComparison(let call, let op, let value): "\(call) \(op.rawValue) \(value)"
        case .functionInList(let call, let negated, let values):
            "\(call) \(negated ? "NOT IN" : "IN") (" + values.map(\.description).joined(separator: ", ") + ")"
        }
    }
}

extension Literal: CustomStringConvertible {
    /// The literal as SOQL text: strings quoted and escaped, dates and date literals as written.
    public var description: String {
        switch self {
        case .null: "null"
        case .boolean(let value): value ? "true" : "false"
        case .number(let text): text
        case .string(let value, _): Self.quote(value)
        case .date(let text), .dateTime(let text): text
        case .dateLiteral(let literal): literal.description
        case .currency(let text): text
        }
    }

    /// The literal as the pattern of a LIKE: `\%` and `\_` stay escaped.
    var likeDescription: String {
        if case .string(_, let likePattern) = self { return Self.quote(likePattern, keepingBackslashes: true) }
        return description
    }

    /// Quotes a string as a SOQL literal. With `keepingBackslashes`, the text is a LIKE-form
    /// string whose backslashes are already escapes (`\\`, `\%`, `\_`).
    static func quote(_ text: String, keepingBackslashes: Bool = false) -> String {
        var result = "'"
        for character in text {
            switch character {
            case "'": result += "\\'"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\u{08}": result += "\\b"
            case "\u{0C}": result += "\\f"
            case "\\": result += keepingBackslashes ? "\\" : "\\\\"
            default: result.append(character)
            }
        }
        return result + "'"
    }
}
