extension Query {
    /// Removes a leading alias or object name from field paths (`a.Name` or `Account.Name` →
    /// `Name`), and replaces the alias of a FROM relationship by the relationship
    /// (`FROM Contact c, c.Account a` … `a.Name` → `Account.Name`).
    func strippingQualifier() -> Query {
        var qualifiers = [object.lowercased()]
        if let alias { qualifiers.append(alias.lowercased()) }
        func stripObject(_ path: FieldPath) -> FieldPath {
            guard path.components.count > 1, qualifiers.contains(path.components[0].lowercased()) else { return path }
            return FieldPath(Array(path.components.dropFirst()), at: path.location)
        }
        var relationships = fromRelationships.map { FromRelationship(path: stripObject($0.path), alias: $0.alias) }
        var aliases: [String: [String]] = [:]
        for index in relationships.indices {
            // A relationship may start from an earlier one's alias.
            let path = relationships[index].path
            if path.components.count > 1, let base = aliases[path.components[0].lowercased()] {
                relationships[index].path = FieldPath(base + path.components.dropFirst(), at: path.location)
            }
            aliases[relationships[index].alias.lowercased()] = relationships[index].path.components
        }
        func strip(_ path: FieldPath) -> FieldPath {
            let path = stripObject(path)
            guard path.components.count > 1, let base = aliases[path.components[0].lowercased()] else { return path }
            return FieldPath(base + path.components.dropFirst(), at: path.location)
        }
        var query = self
        // Every path now reads from the queried object: the aliases are spent. Dropping them keeps
        // printing and parsing the identity (a path starting with a name equal to an alias would
        // otherwise lose a step on each parse), and the printed query is plain SOQL.
        query.alias = nil
        query.fromRelationships = []
        query.selectItems = selectItems.map { $0.mapFields(strip) }
        query.condition = condition.map { $0.mapFields(strip) }
        query.groupBy = groupBy.map { GroupBy(kind: $0.kind, items: $0.items.map { $0.mapFields(strip) }) }
        query.having = having.map { $0.mapFields(strip) }
        query.orderBy = orderBy.map { OrderItem(expression: $0.expression.mapFields(strip), direction: $0.direction, nulls: $0.nulls) }
        return query
    }
}

extension SelectItem {
    /// The same item with every field path of the query's own object transformed (a
    /// subquery's fields, which belong to the child object, are left alone).
    func mapFields(_ transform: (FieldPath) -> FieldPath) -> SelectItem {
        switch self {
        case .field(let path): .field(transform(path))
        case .aliasedField(let path, let alias): .aliasedField(transform(path), alias: alias)
        case .function(let call, let alias): .function(call.mapFields(transform), alias: alias)
        case .subquery, .countAll, .typeOf, .fields: self
        }
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
        case .functionComparison(let call, let op, let value): .functionComparison(call.mapFields(transform), op, value)
        case .functionInList(let call, let negated, let values):
            .functionInList(call.mapFields(transform), negated: negated, values: values)
        }
    }
}
