import SOQL

/// SQL for SOQL's functions, as a single-currency, single-language org in GMT with a fiscal year
/// starting in January answers them: date functions are parts of the UTC date, fiscal ones equal
/// the calendar ones, `convertTimezone` and `convertCurrency` return the value as stored,
/// `toLabel` the picklist value (labels are the values), `FORMAT` the value formatted for
/// `en_US` (done on output, see ``ValueFormat``).
struct FunctionSQL {
    let from: FromContext
    let dialect: SQLDialect

    /// A compiled expression: its SQL, the type of its values, and whether output formats them.
    struct Compiled {
        var sql: String
        var type: FieldType
        var formatted = false
    }

    /// Where an expression appears: a row (WHERE, GROUP BY, a plain SELECT: no aggregates), or
    /// one grouping set of an aggregate query (its SELECT, HAVING or ORDER BY). There, fields
    /// the set does not group by read NULL outside aggregates, as on Salesforce's subtotal rows,
    /// and `GROUPING(field)` is 1 for them.
    enum Context {
        case row
        case aggregate(ungrouped: Set<String>, subtotalKeys: Set<String>)
    }

    func compile(_ expression: FieldExpression, context: Context) throws(SOQLError) -> Compiled {
        switch expression {
        case .field(let path):
            let resolved = try from.resolve(path)
            if case .aggregate(let ungrouped, _) = context, ungrouped.contains(path.description.lowercased()) {
                return Compiled(sql: "NULL", type: resolved.field.type)
            }
            return Compiled(sql: resolved.expression, type: resolved.field.type)
        case .function(let call):
            return try compile(call, context: context)
        }
    }

    func compile(_ call: FunctionCall, context: Context) throws(SOQLError) -> Compiled {
        guard let kind = call.kind else { throw Self.error("Unknown function \(call.name)", call) }
        if kind.isAggregate, case .row = context {
            throw Self.error(
                "Aggregate function \(call.name) is not allowed here: use it in the SELECT list, HAVING or ORDER BY of an aggregate query",
                call)
        }
        // An aggregate reads every row of its group: its argument is a row expression.
        let argumentContext = kind.isAggregate ? Context.row : context
        let argument = { () throws(SOQLError) -> Compiled in
            guard let first = call.arguments.first else { throw Self.error("\(call.name) needs an argument", call) }
            switch first {
            case .field(let path): return try compile(.field(path), context: argumentContext)
            case .function(let inner): return try compile(inner, context: argumentContext)
            case .literal: throw Self.error("\(call.name) needs a field", call)
            }
        }
        switch kind {
        case .count:
            return Compiled(sql: "COUNT(\(try argument().sql))", type: .int)
        case .countDistinct:
            return Compiled(sql: "COUNT(DISTINCT \(try argument().sql))", type: .int)
        case .sum, .avg:
            let inner = try argument()
            guard [.int, .double, .currency, .percent].contains(inner.type) else {
                throw Self.error(
                    "field \(call.fieldPaths.first?.description ?? "") does not support aggregate operator \(kind.rawValue)", call)
            }
            // PostgreSQL sums and averages integers as numeric: cast back to the wire's types.
            if kind == .sum {
                return inner.type == .int
                    ? Compiled(sql: "CAST(SUM(\(inner.sql)) AS \(dialect.integerType))", type: .int)
                    : Compiled(sql: "SUM(\(inner.sql))", type: inner.type)
            }
            return Compiled(sql: "CAST(AVG(\(inner.sql)) AS \(dialect.realType))", type: inner.type == .int ? .double : inner.type)
        case .min, .max:
            let inner = try argument()
            guard ![.boolean, .textarea, .multipicklist].contains(inner.type) else {
                throw Self.error(
                    "field \(call.fieldPaths.first?.description ?? "") does not support aggregate operator \(kind.rawValue)", call)
            }
            return Compiled(sql: "\(kind.rawValue)(\(inner.sql))", type: inner.type)
        case .grouping:
            guard case .aggregate(let ungrouped, let subtotalKeys) = context, let path = call.fieldPaths.first,
                subtotalKeys.contains(path.description.lowercased())
            else {
                throw Self.error("GROUPING takes a field of GROUP BY ROLLUP or CUBE", call)
            }
            return Compiled(sql: ungrouped.contains(path.description.lowercased()) ? "1" : "0", type: .int)
        case .toLabel, .convertCurrency, .convertTimezone:
            let inner = try argument()
            if kind == .toLabel, ![.picklist, .multipicklist].contains(inner.type), call.fieldPaths.first?.field.lowercased() != "name" {
                throw Self.error("toLabel applies to picklist fields", call)
            }
            if kind == .convertCurrency, inner.type != .currency { throw Self.error("convertCurrency applies to currency fields", call) }
            if kind == .convertTimezone, inner.type != .datetime { throw Self.error("convertTimezone applies to datetime fields", call) }
            return inner
        case .format:
            var inner = try argument()
            inner.formatted = true
            return inner
        case .distance, .geolocation:
            throw Self.error("\(call.name) needs a geolocation field, and LocalForce's objects have none", call)
        default:
            return try datePart(kind, try argument(), call)
        }
    }

    private func datePart(_ kind: FunctionKind, _ inner: Compiled, _ call: FunctionCall) throws(SOQLError) -> Compiled {
        guard inner.type == .date || inner.type == .datetime else {
            throw Self.error("\(call.name) applies to date and datetime fields", call)
        }
        let isDateTime = inner.type == .datetime
        let part = { (name: String) in dialect.datePart(name, inner.sql, isDateTime) }
        switch kind {
        case .calendarYear, .fiscalYear: return Compiled(sql: part("year"), type: .int)
        case .calendarMonth, .fiscalMonth: return Compiled(sql: part("month"), type: .int)
        case .calendarQuarter, .fiscalQuarter: return Compiled(sql: "((\(part("month")) + 2) / 3)", type: .int)
        case .dayInMonth: return Compiled(sql: part("day"), type: .int)
        case .dayInWeek: return Compiled(sql: part("weekday"), type: .int)
        case .dayInYear: return Compiled(sql: part("dayOfYear"), type: .int)
        case .weekInMonth: return Compiled(sql: "((\(part("day")) - 1) / 7 + 1)", type: .int)
        case .weekInYear: return Compiled(sql: "((\(part("dayOfYear")) - 1) / 7 + 1)", type: .int)
        case .hourInDay:
            guard isDateTime else { throw Self.error("HOUR_IN_DAY applies to datetime fields", call) }
            return Compiled(sql: part("hour"), type: .int)
        case .dayOnly:
            guard isDateTime else { throw Self.error("DAY_ONLY applies to datetime fields", call) }
            return Compiled(sql: part("date"), type: .date)
        default:
            throw Self.error("Unknown function \(call.name)", call)
        }
    }

    static func error(_ message: String, _ call: FunctionCall) -> SOQLError {
        SOQLError(.malformedQuery, message, at: call.fieldPaths.first?.location)
    }
}
