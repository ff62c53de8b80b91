import SOQL

/// What `msync query --org` reads in the SOQL it sends: the records' members in SELECT order,
/// and whether the query only counts (`SELECT COUNT() FROM …`, whose answer is a total and no
/// records).
struct SOQLColumns {
    /// Top-level member names in SELECT order: a field's (a relationship path's first part), an
    /// alias, a subquery's relationship, `exprN` for an unaliased aggregate. Empty when the query
    /// does not parse here (the org still answers it; members then come sorted).
    let order: [String]
    let isCountOnly: Bool

    init(_ soql: String) {
        guard let query = try? SOQLParser.parse(soql) else {
            (order, isCountOnly) = ([], false)
            return
        }
        isCountOnly = query.isCountOnly
        var order: [String] = []
        var expressions = 0
        for item in query.selectItems {
            var name: String?
            switch item {
            case .field(let path):
                // `SELECT a.Name FROM Account a`: the alias is not a member.
                let components =
                    path.components.count > 1 && path.components.first?.lowercased() == query.alias?.lowercased()
                    ? Array(path.components.dropFirst()) : path.components
                name = components.first
            case .aliasedField(_, let alias): name = alias
            case .function(let call, let alias):
                if let alias {
                    name = alias
                } else if call.containsAggregate {
                    name = "expr\(expressions)"
                    expressions += 1
                }
            case .subquery(let subquery): name = subquery.relationship
            case .countAll, .typeOf, .fields: name = nil
            }
            if let name, !order.contains(where: { $0.lowercased() == name.lowercased() }) { order.append(name) }
        }
        self.order = order
    }
}
