import FastJSON
import Foundation
import SOQL

/// Runs SOSL: each RETURNING object is queried with the search terms matched, case-insensitively,
/// as substrings of the fields in scope (`*` any run, `?` one character), combined with the
/// terms' AND / OR / AND NOT. Results come back in RETURNING order, per-object LIMIT first,
/// then the overall LIMIT (at most 2000).
struct SearchEngine {
    /// Salesforce's most records a search returns (its own limit, not a query's page size).
    static let maximumRecords = 2000
    let schema: Schema
    let db: any SQLConnection
    let version: String
    /// The request's time, for date literals.
    let now: Date

    func run(_ search: SearchQuery) throws(SOQLError) -> [UInt8] {
        let targets: [ReturningObject]
        if search.returning.isEmpty {
            targets = schema.objects.filter { $0.name != "User" }.map { ReturningObject(object: $0.name) }
        } else {
            targets = search.returning
        }
        var remaining = min(search.limit ?? Self.maximumRecords, Self.maximumRecords)
        var writer = JSONWriter(reservingCapacity: 4096)
        writer.write(punctuation: "{")
        writer.writeKey("searchRecords")
        writer.write(punctuation: "[")
        var first = true
        var skip = search.offset ?? 0
        for target in targets where remaining > 0 {
            guard let object = schema.object(named: target.object) else { throw ConditionCompiler.unknownObject(target.object, nil) }
            let fields = target.fields.isEmpty ? [FieldPath(["Id"])] : target.fields
            let query = Query(
                selectItems: fields.map(SelectItem.field), object: object.name, condition: target.condition,
                orderBy: target.orderBy, limit: target.limit.map { min($0, remaining + skip) } ?? remaining + skip, offset: target.offset)
            let searched = searchedFields(object, scope: search.scope)
            let engine = QueryEngine(schema: schema, db: db, now: now, includeDeleted: false)
            let snapshot = try engine.snapshot(query) { from, arguments throws(SOQLError) in
                try Self.predicate(
                    search.expression, fields: searched.map { "\(from.alias).\(SQLDialect.quote($0.name))" }, arguments: arguments)
            }
            var ids = snapshot.ids[...]
            let dropped = min(skip, ids.count)
            ids = ids.dropFirst(dropped)
            skip -= dropped
            ids = ids.prefix(remaining)
            guard !ids.isEmpty else { continue }
            if !first { writer.write(punctuation: ",") }
            first = false
            try engine.writeRecords(query, ids: ids, version: version, to: &writer)
            remaining -= ids.count
        }
        writer.write(punctuation: "]")
        writer.write(punctuation: "}")
        return writer.bytes
    }

    /// The fields a scope searches: text fields (ALL), the name field (NAME), emails, phones.
    private func searchedFields(_ object: ObjectDefinition, scope: SearchQuery.Scope) -> [FieldDefinition] {
        switch scope {
        case .name: object.nameField.map { [$0] } ?? []
        case .email: object.fields.filter { $0.type == .email }
        case .phone: object.fields.filter { $0.type == .phone }
        case .all, .sidebar: object.fields.filter { $0.type.isText }
        }
    }

    /// The SQL for search terms. The parser bounds their nesting; an expression built deeper by
    /// hand answers `QUERY_TOO_COMPLICATED` instead of exhausting the stack.
    static func predicate(_ expression: SearchExpression, fields: [String], arguments: SQLArguments, depth: Int = 0) throws(SOQLError)
        -> String
    {
        guard depth < ConditionCompiler.maximumDepth else { throw SOQLError.tooComplicated() }
        switch expression {
        case .term(let text), .phrase(let text):
            guard !fields.isEmpty else { return "1 = 0" }
            var pattern = ""
            for character in text {
                switch character {
                case "*": pattern += "%"
                case "?": pattern += "_"
                case "%", "_", "\\": pattern += "\\" + String(character)
                default: pattern.append(character)
                }
            }
            let bound = "%" + pattern + "%"
            // coalesce: a NULL field must read as "no match", not unknown (NOT would keep it unknown).
            return balancedJoin(
                fields.map { arguments.dialect.caseInsensitiveLike("coalesce(\($0), '')", arguments.bind(.text(bound))) + " ESCAPE '\\'" },
                "OR")
        case .and(let operands):
            return balancedJoin(
                try operands.map { operand throws(SOQLError) in
                    try predicate(operand, fields: fields, arguments: arguments, depth: depth + 1)
                }, "AND")
        case .or(let operands):
            return balancedJoin(
                try operands.map { operand throws(SOQLError) in
                    try predicate(operand, fields: fields, arguments: arguments, depth: depth + 1)
                }, "OR")
        case .andNot(let left, let right):
            return "(" + (try predicate(left, fields: fields, arguments: arguments, depth: depth + 1)) + " AND NOT "
                + (try predicate(right, fields: fields, arguments: arguments, depth: depth + 1)) + ")"
        }
    }
}
