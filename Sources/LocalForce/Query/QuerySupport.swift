import SOQL

/// The parts of SOQL the parser knows and LocalForce does not run yet: each answers
/// `MALFORMED_QUERY` naming the part, never a wrong answer.
enum QuerySupport {
    static func check(_ query: Query) throws(SOQLError) {
        for item in query.selectItems {
            switch item {
            case .field, .subquery, .countAll: continue
            case .aliasedField(let path, _): throw unsupported("field aliases", at: path.location)
            case .function(let call, _): throw unsupported("\(call.name)()", at: call.fieldPaths.first?.location)
            case .typeOf: throw unsupported("TYPEOF")
            case .fields: throw unsupported("FIELDS()")
            }
        }
        if query.groupBy != nil { throw unsupported("GROUP BY") }
        if query.having != nil { throw unsupported("HAVING") }
        for item in query.orderBy where item.field == nil { throw unsupported("ORDER BY \(item.expression)") }
        for clause in query.with {
            switch clause {
            case .securityEnforced, .userMode, .systemMode: continue
            default: throw unsupported("WITH \(clause)")
            }
        }
        if let scope = query.scope { throw unsupported("USING SCOPE \(scope)") }
        if let condition = query.condition { try check(condition) }
    }

    static func check(_ condition: Condition) throws(SOQLError) {
        switch condition {
        case .and(let operands), .or(let operands): for operand in operands { try check(operand) }
        case .not(let inner), .group(let inner): try check(inner)
        case .functionComparison(let call, _, _), .functionInList(let call, _, _):
            throw unsupported("\(call.name)() in WHERE", at: call.fieldPaths.first?.location)
        case .comparison(_, _, .currency(let amount)): throw unsupported("currency literal \(amount)")
        default: return
        }
    }

    private static func unsupported(_ what: String, at location: SourceLocation? = nil) -> SOQLError {
        SOQLError(.malformedQuery, "LocalForce does not run \(what) yet", at: location)
    }
}
