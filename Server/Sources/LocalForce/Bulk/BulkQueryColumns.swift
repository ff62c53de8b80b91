import FastJSON
import SOQL

/// The CSV columns of a Bulk query: its SELECT list, which may hold fields and parent fields
/// (`Account.Name`) only, as Salesforce's Bulk queries allow.
struct BulkQueryColumns {
    let paths: [FieldPath]

    /// The columns, or the error Salesforce gives for what a Bulk query cannot select.
    init(_ query: Query, schema: Schema) throws(APIError) {
        let unsupported = { (what: String) in APIError(400, "API_ERROR", "\(what) is not supported by the Bulk API") }
        if query.isAggregate || query.isCountOnly { throw unsupported("An aggregate query") }
        if query.offset != nil { throw unsupported("OFFSET") }
        var paths: [FieldPath] = []
        for item in query.selectItems {
            switch item {
            case .field(let path): paths.append(path)
            case .subquery: throw APIError(400, "API_ERROR", "Aggregate Relationship is not supported in Bulk Query with CSV content type.")
            case .typeOf: throw unsupported("TYPEOF")
            case .fields: throw unsupported("FIELDS()")
            case .aliasedField, .function, .countAll: throw unsupported("A function or an alias in the SELECT list")
            }
        }
        self.paths = paths
    }

    /// The header line's values.
    var header: [String] { paths.map(\.description) }

    /// A record's values in column order: text as it is, numbers and booleans as JSON writes
    /// them, null and missing parents empty.
    func values(of record: JSONValue) -> [String] {
        paths.map { path in
            var value: JSONValue? = record
            for component in path.components {
                guard case .object(let members) = value else {
                    value = nil
                    break
                }
                value = members[component] ?? members.first { $0.key.lowercased() == component.lowercased() }?.value
            }
            switch value {
            case .string(let text): return text
            case .none, .null: return ""
            case .some(let other): return other.jsonString
            }
        }
    }
}
