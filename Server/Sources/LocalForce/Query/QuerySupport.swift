import SOQL

/// Prepares a query for LocalForce: `FIELDS()` expanded to the object's fields (with
/// Salesforce's LIMIT 200 rule for `ALL` and `CUSTOM`), and the checks of what it does not
/// run, each answering `MALFORMED_QUERY` naming the part rather than answering something else.
enum QuerySupport {
    /// `FIELDS(ALL)` / `FIELDS(CUSTOM)` need a LIMIT of at most this many rows.
    static let fieldsLimit = 200

    /// The query with `FIELDS()` expanded, in its SELECT list and its subqueries'.
    static func prepared(_ query: Query, schema: Schema) throws(SOQLError) -> Query {
        guard let object = schema.object(named: query.object) else { return query }
        // Most queries have no FIELDS(): nothing to expand (this runs for every page of a cursor).
        let hasFields = { (items: [SelectItem]) in items.contains { if case .fields = $0 { true } else { false } } }
        let subqueryHasFields = query.selectItems.contains { if case .subquery(let sub) = $0 { hasFields(sub.items) } else { false } }
        guard hasFields(query.selectItems) || subqueryHasFields else {
            try checkSubqueries(query)
            try check(query)
            return query
        }
        var query = query
        let needsLimit = query.selectItems.contains(.fields(.all)) || query.selectItems.contains(.fields(.custom))
        if needsLimit, (query.limit ?? Int.max) > fieldsLimit {
            throw SOQLError(.malformedQuery, "The SOQL FIELDS function must have a LIMIT of at most \(fieldsLimit)")
        }
        query.selectItems = expanded(query.selectItems, object: object)
        query.selectItems = try query.selectItems.map { item throws(SOQLError) -> SelectItem in
            guard case .subquery(var subquery) = item else { return item }
            guard let relationship = schema.childRelationship(subquery.relationship, of: object.name),
                let child = schema.object(named: relationship.childObject)
            else { return item }
            if subquery.items.contains(.fields(.all)) || subquery.items.contains(.fields(.custom)),
                (subquery.limit ?? Int.max) > fieldsLimit
            {
                throw SOQLError(.malformedQuery, "The SOQL FIELDS function must have a LIMIT of at most \(fieldsLimit)")
            }
            subquery.items = expanded(subquery.items, object: child)
            return .subquery(subquery)
        }
        try checkSubqueries(query)
        try check(query)
        return query
    }

    /// A subquery's SELECT list takes no aggregate and no date function.
    private static func checkSubqueries(_ query: Query) throws(SOQLError) {
        for case .subquery(let subquery) in query.selectItems {
            for case .function(let call, _) in subquery.items where call.containsAggregate || call.kind?.isDateFunction == true {
                throw SOQLError(.malformedQuery, "\(call.name) is not allowed in a subquery", at: call.fieldPaths.first?.location)
            }
        }
    }

    /// `FIELDS(…)` replaced by the object's fields of that kind, in schema order, leaving out
    /// the fields the list already has.
    private static func expanded(_ items: [SelectItem], object: ObjectDefinition) -> [SelectItem] {
        var seen = Set(items.compactMap { if case .field(let path) = $0 { path.description.lowercased() } else { nil } })
        var result: [SelectItem] = []
        for item in items {
            guard case .fields(let selector) = item else {
                result.append(item)
                continue
            }
            for field in object.fields {
                let isCustom = field.name.hasSuffix("__c")
                guard selector == .all || (selector == .custom) == isCustom, seen.insert(field.name.lowercased()).inserted else { continue }
                result.append(.field(FieldPath([field.name])))
            }
        }
        return result
    }

    static func check(_ query: Query) throws(SOQLError) {
        for item in query.selectItems {
            switch item {
            case .function(let call, _) where !query.isAggregate && containsDateFunction(call):
                throw SOQLError(
                    .malformedQuery, "Date functions in the SELECT list need GROUP BY: \(call)", at: call.fieldPaths.first?.location)
            default: continue
            }
        }
        if !query.isAggregate {
            for item in query.orderBy where item.field == nil { throw unsupported("ORDER BY \(item.expression)") }
        }
        for clause in query.with {
            switch clause {
            case .securityEnforced, .userMode, .systemMode: continue
            case .dataCategory:
                throw SOQLError(
                    .malformedQuery, "WITH DATA CATEGORY filters Knowledge articles and questions, which LocalForce does not have")
            case .parameters(let name, _), .equals(let name, _): throw unsupported("WITH \(name)")
            }
        }
    }

    /// Whether a call is, or holds, a date function (`FORMAT(CALENDAR_YEAR(CreatedDate))`).
    private static func containsDateFunction(_ call: FunctionCall) -> Bool {
        if call.kind?.isDateFunction == true { return true }
        return call.arguments.contains { if case .function(let inner) = $0 { containsDateFunction(inner) } else { false } }
    }

    private static func unsupported(_ what: String, at location: SourceLocation? = nil) -> SOQLError {
        SOQLError(.malformedQuery, "LocalForce does not run \(what) yet", at: location)
    }
}
