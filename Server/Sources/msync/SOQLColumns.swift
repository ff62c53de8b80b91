import FastJSON
import SOQL

/// What `msync query --org` reads in the SOQL it sends: the columns in SELECT order, and
/// whether the query only counts (`SELECT COUNT() FROM …`, whose answer is a total and no
/// records).
struct SOQLColumns {
    /// Column names in SELECT order: a field's, a parent's field as its path (`Owner.Username`),
    /// an alias, a subquery's relationship, `exprN` for an unaliased aggregate. Empty when the
    /// query does not parse here (the org still answers it; members then come sorted).
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
                name = components.joined(separator: ".")
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

    /// The top-level member names in SELECT order (a parent's once): JSON lines' order.
    var memberOrder: [String] {
        var names: [String] = []
        for column in order {
            let name = String(column.split(separator: ".").first ?? Substring(column))
            if !names.contains(where: { $0.lowercased() == name.lowercased() }) { names.append(name) }
        }
        return names
    }

    /// A record as table and CSV rows show it: each parent's fields as columns of their own
    /// (`Owner: {"Username": …}` becomes `Owner.Username`, a parent that is null leaves its
    /// columns null), `attributes` left out. A subquery's records stay one JSON value.
    func flattened(_ record: JSONValue) -> JSONValue {
        var found: [String: JSONValue] = [:]
        Self.flatten(record, prefix: "", depth: 0, into: &found)
        // Each column spelled as the query spells it, on every row (the org answers in its own case).
        let spelling = Dictionary(order.map { ($0.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
        var flat: [String: JSONValue] = [:]
        for (key, value) in found { flat[spelling[key.lowercased()] ?? key] = value }
        for column in order where flat[column] == nil {
            // A null parent: its selected fields are null.
            if let parent = flat.keys.first(where: { column.lowercased().hasPrefix($0.lowercased() + ".") }), flat[parent] == .null {
                flat[column] = .null
            }
        }
        for key in Array(flat.keys) where flat[key] == .null && order.contains(where: { $0.lowercased().hasPrefix(key.lowercased() + ".") })
        {
            flat[key] = nil
        }
        return .object(flat)
    }

    /// SOQL reaches parents five levels up: deeper objects stay whole.
    private static func flatten(_ value: JSONValue, prefix: String, depth: Int, into flat: inout [String: JSONValue]) {
        guard case .object(let members) = value else { return }
        for (key, member) in members where key != "attributes" {
            if depth < 5, case .object(let inner) = member, inner["attributes"] != nil {
                flatten(member, prefix: prefix + key + ".", depth: depth + 1, into: &flat)
            } else {
                flat[prefix + key] = member
            }
        }
    }
}
