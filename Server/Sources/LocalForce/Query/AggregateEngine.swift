import FastJSON
import Foundation
import SOQL

/// Runs aggregate queries: `COUNT(field)`, `COUNT_DISTINCT`, `SUM`, `AVG`, `MIN`, `MAX`, with
/// GROUP BY (fields and date functions), ROLLUP and CUBE (as one grouping per subtotal level,
/// unioned, with `GROUPING()`), HAVING and ORDER BY over aggregates. The rows are
/// `AggregateResult`s: grouped fields under their names, the rest under their alias or
/// `expr0`, `expr1`, … in SELECT order.
struct AggregateEngine {
    let schema: Schema
    let db: any SQLConnection
    let now: Date
    let includeDeleted: Bool
    let userFilter: (FromContext, SQLArguments) throws(SOQLError) -> String?

    /// Salesforce answers at most 2,000 aggregate rows at once.
    static let maximumRows = 2000
    /// ROLLUP and CUBE take up to three fields.
    static let maximumSubtotalFields = 3

    private struct Column {
        var key: String
        var type: FieldType
        var formatted: Bool
    }

    /// What every grouping set of one query shares.
    private struct Grouping {
        let items: [FieldExpression]
        /// Each group item's text, lowercased: how select items are matched to it.
        let keys: [String]
        /// The group keys ROLLUP or CUBE subtotal (none for a plain GROUP BY).
        let subtotalKeys: Set<String>
        /// Without ORDER BY, subtotals follow their groups as Salesforce lists them: ordered by
        /// each group item's GROUPING() and then its value.
        let implicitOrder: Bool
    }

    /// The rows as JSON array elements, and how many.
    func run(_ query: Query, object: ObjectDefinition) throws(SOQLError) -> (count: Int, records: [UInt8]) {
        let groupItems = query.groupBy?.items ?? []
        let kind = query.groupBy?.kind ?? .plain
        if kind != .plain, groupItems.count > Self.maximumSubtotalFields {
            throw SOQLError(.malformedQuery, "\(kind.rawValue) accepts at most \(Self.maximumSubtotalFields) fields")
        }
        let keys = groupItems.map { $0.description.lowercased() }
        let grouping = Grouping(
            items: groupItems, keys: keys, subtotalKeys: kind == .plain ? [] : Set(keys),
            implicitOrder: query.orderBy.isEmpty && kind != .plain)
        let sets: [[Int]] =
            switch kind {
            case .plain: [Array(groupItems.indices)]
            case .rollup: (0...groupItems.count).reversed().map { Array(0..<$0) }
            case .cube: Self.subsets(groupItems.count)
            }
        let arguments = SQLArguments(dialect: db.dialect)
        var members: [String] = []
        var columns: [Column] = []
        for set in sets {
            let member = try member(query, object: object, set: set, grouping: grouping, arguments: arguments)
            members.append(member.sql)
            columns = member.columns
        }
        let sql = "SELECT * FROM (" + members.joined(separator: " UNION ALL ") + ") agg" + outerClauses(query, grouping, arguments)
        let rows: [[SQLValue]]
        do {
            rows = try db.rows(sql, arguments.values)
        } catch {
            throw StorageRefusal.soqlError(error)
        }
        guard rows.count <= Self.maximumRows else {
            throw SOQLError(.malformedQuery, "Aggregate query has too many rows (more than \(Self.maximumRows)): add filters or a LIMIT")
        }
        return (rows.count, Self.json(rows, columns: columns))
    }

    /// The SELECT of one grouping set (the group items at `set`), and its columns.
    private func member(_ query: Query, object: ObjectDefinition, set: [Int], grouping: Grouping, arguments: SQLArguments)
        throws(SOQLError) -> (sql: String, columns: [Column])
    {
        let from = FromContext(schema: schema, object: object, alias: "t")
        let ungrouped = Set(grouping.keys.indices.filter { !set.contains($0) }.map { grouping.keys[$0] })
        let functions = FunctionSQL(from: from, dialect: db.dialect)
        let context = FunctionSQL.Context.aggregate(ungrouped: ungrouped, subtotalKeys: grouping.subtotalKeys)
        // Everything that binds a value is compiled in text order (WHERE, scope, HAVING; then
        // LIMIT and OFFSET), so that SQLite's positional placeholders line up.
        var parts: [String] = []
        var columns: [Column] = []
        var expressionCount = 0
        for item in query.selectItems {
            let (sql, column) = try selectColumn(
                item, functions: functions, context: context, groupKeys: grouping.keys, ungrouped: ungrouped,
                expressionCount: &expressionCount)
            parts.append("\(sql) AS c\(parts.count)")
            columns.append(column)
        }
        for (index, item) in query.orderBy.enumerated() {
            let sql = try orderColumn(
                item.expression, functions: functions, context: context, groupKeys: grouping.keys, ungrouped: ungrouped)
            parts.append("\(sql) AS o\(index)")
        }
        if grouping.implicitOrder {
            for (index, item) in grouping.items.enumerated() {
                let isSubtotal = ungrouped.contains(grouping.keys[index])
                parts.append("\(isSubtotal ? 1 : 0) AS g\(index)")
                parts.append("\(isSubtotal ? "NULL" : try functions.compile(item, context: .row).sql) AS v\(index)")
            }
        }
        let compiler = ConditionCompiler(from: from, arguments: arguments, now: now)
        var filters: [String] = []
        if !includeDeleted { filters.append("t.\"IsDeleted\" = 0") }
        if let condition = query.condition { filters.append("(" + (try compiler.compile(condition)) + ")") }
        if let scoped = try userFilter(from, arguments) { filters.append(scoped) }
        let grouped = try set.map { index throws(SOQLError) in try functions.compile(grouping.items[index], context: .row).sql }
        var having = ""
        if let condition = query.having {
            var havingCompiler = compiler
            havingCompiler.functionContext = context
            having = " HAVING " + (try havingCompiler.compile(condition))
        }
        // The FROM is read last: resolving the columns above added its joins.
        var sql = "SELECT \(parts.joined(separator: ", ")) FROM \(from.sql)"
        if !filters.isEmpty { sql += " WHERE " + filters.joined(separator: " AND ") }
        if !grouped.isEmpty { sql += " GROUP BY " + grouped.joined(separator: ", ") }
        return (sql + having, columns)
    }

    /// ORDER BY (the query's, or the subtotals' implicit one), LIMIT and OFFSET of the union.
    private func outerClauses(_ query: Query, _ grouping: Grouping, _ arguments: SQLArguments) -> String {
        var sql = ""
        if !query.orderBy.isEmpty {
            sql +=
                " ORDER BY "
                + query.orderBy.enumerated().map { index, item in
                    "o\(index) \(item.direction == .descending ? "DESC" : "ASC") \(item.nulls == .last ? "NULLS LAST" : "NULLS FIRST")"
                }.joined(separator: ", ")
        } else if grouping.implicitOrder {
            sql += " ORDER BY " + grouping.items.indices.map { "g\($0) ASC, v\($0) ASC NULLS FIRST" }.joined(separator: ", ")
        }
        let limit = min(query.limit ?? Self.maximumRows + 1, Self.maximumRows + 1)
        sql += " LIMIT \(arguments.bind(.integer(Int64(limit))))"
        if let offset = query.offset { sql += " OFFSET \(arguments.bind(.integer(Int64(offset))))" }
        return sql
    }

    /// The rows as `AggregateResult` records, comma-separated JSON objects.
    private static func json(_ rows: [[SQLValue]], columns: [Column]) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 1 << 14)
        for (index, row) in rows.enumerated() {
            if index > 0 { writer.write(punctuation: ",") }
            writer.write(punctuation: "{")
            RecordJSON.writeAttributes(object: "AggregateResult", id: nil, version: "", to: &writer)
            for (position, column) in columns.enumerated() where position < row.count {
                writer.write(punctuation: ",")
                writer.writeKey(column.key)
                writer.write(
                    column.formatted ? ValueFormat.json(row[position], for: column.type) : FieldCodec.json(row[position], for: column.type))
            }
            writer.write(punctuation: "}")
        }
        return writer.bytes
    }

    /// One SELECT item of one grouping set: its SQL (NULL when it reads a field this set does
    /// not group by) and its output key and type.
    private func selectColumn(
        _ item: SelectItem, functions: FunctionSQL, context: FunctionSQL.Context, groupKeys: [String], ungrouped: Set<String>,
        expressionCount: inout Int
    ) throws(SOQLError) -> (String, Column) {
        switch item {
        case .field(let path), .aliasedField(let path, _):
            let compiled = try functions.compile(.field(path), context: .row)
            let alias: String? = if case .aliasedField(_, let alias) = item { alias } else { nil }
            let sql = ungrouped.contains(path.description.lowercased()) ? "NULL" : compiled.sql
            return (sql, Column(key: alias ?? path.field, type: compiled.type, formatted: false))
        case .function(let call, let alias):
            // Fields this set does not group by read NULL outside aggregates (FunctionSQL), and so
            // does a grouped function of them (CALENDAR_YEAR(CreatedDate) on a subtotal row).
            let compiled = try functions.compile(call, context: context)
            let sql = ungrouped.contains(call.description.lowercased()) ? "NULL" : compiled.sql
            // toLabel, FORMAT and convertCurrency of a grouped field keep its name; aggregates and
            // date functions are expressions.
            let keepsName = [.toLabel, .format, .convertCurrency].contains(call.kind) && !call.containsAggregate
            var key = alias ?? call.fieldPaths.first?.field ?? "expr\(expressionCount)"
            if alias == nil, !keepsName {
                key = "expr\(expressionCount)"
                expressionCount += 1
            }
            return (sql, Column(key: key, type: compiled.type, formatted: compiled.formatted))
        case .countAll, .subquery, .typeOf, .fields:
            throw SOQLError(.malformedQuery, "Field must be grouped or aggregated: \(item)")
        }
    }

    private func orderColumn(
        _ expression: FieldExpression, functions: FunctionSQL, context: FunctionSQL.Context, groupKeys: [String], ungrouped: Set<String>
    ) throws(SOQLError) -> String {
        let key = expression.description.lowercased()
        if ungrouped.contains(key) { return "NULL" }
        switch expression {
        case .field(let path):
            guard groupKeys.contains(key) else {
                throw SOQLError(.malformedQuery, "Ordered field must be grouped or aggregated: \(path)", at: path.location)
            }
            return try functions.compile(expression, context: .row).sql
        case .function(let call):
            guard call.containsAggregate || groupKeys.contains(key) else {
                throw SOQLError(
                    .malformedQuery, "Ordered field must be grouped or aggregated: \(call)", at: call.fieldPaths.first?.location)
            }
            return try functions.compile(call, context: context).sql
        }
    }

    /// Every subset of `0..<count`, largest first (CUBE's grouping sets).
    static func subsets(_ count: Int) -> [[Int]] {
        let all = (0..<(1 << count)).map { mask in (0..<count).filter { mask & (1 << $0) != 0 } }
        return all.sorted { $0.count > $1.count }
    }
}
