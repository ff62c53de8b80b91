import Foundation
import SOQL
import SalesforceWire

/// Compiles a WHERE condition to SQL; every literal is bound through ``SQLArguments``.
///
/// Salesforce semantics: text comparisons are case-insensitive (the columns' collation),
/// `field = null` / `!= null` test for null, `field != value` also matches nulls, date
/// literals are day ranges in UTC, and date/datetime literals must match the field's type.
struct ConditionCompiler {
    let from: FromContext
    let arguments: SQLArguments
    let now: Date
    /// How functions compile: `.row` in WHERE (no aggregates), `.aggregate` in HAVING, where
    /// the fields a grouping set does not group by read NULL.
    var functionContext: FunctionSQL.Context = .row

    /// A field path's SQL: NULL in HAVING for a field this grouping set does not group by.
    private func resolve(_ path: FieldPath) throws(SOQLError) -> FromContext.Resolved {
        var resolved = try from.resolve(path)
        if case .aggregate(let ungrouped, _) = functionContext, ungrouped.contains(path.description.lowercased()) {
            resolved.expression = "NULL"
        }
        return resolved
    }

    /// The stored value a function's result (of type `type`) is compared with: a number with
    /// a number, text with a string, a date with a date, a datetime with a datetime.
    static func functionValue(_ literal: Literal, _ call: FunctionCall, type: FieldType) throws(SOQLError) -> SQLValue {
        switch (literal, type) {
        case (.number(let text), _) where type.isNumber:
            if type == .int, let integer = Int64(text) { return .integer(integer) }
            if let real = Double(text), real.isFinite { return .real(real) }
        case (.currency(let amount), .currency):
            if amount.uppercased().hasPrefix("USD"), let real = Double(amount.dropFirst(3)), real.isFinite { return .real(real) }
        case (.string(let text, _), _) where type.isText: return .text(text)
        case (.date(let text), .date): return .text(text)
        case (.dateTime(let text), .datetime): if let millis = SalesforceTime.parse(text) { return .integer(millis) }
        case (.boolean(let value), .boolean): return .integer(value ? 1 : 0)
        default: break
        }
        throw FunctionSQL.error("value \(literal) cannot be compared with \(call)", call)
    }

    /// The deepest condition compiled: what the parser accepts, with room for the groups it adds.
    /// A deeper condition (built by hand, not parsed) answers `QUERY_TOO_COMPLICATED` instead of
    /// exhausting the stack.
    static let maximumDepth = 2 * SOQLParser.maximumNesting + 2

    func compile(_ condition: Condition) throws(SOQLError) -> String {
        try compile(condition, depth: 0)
    }

    private func compile(_ condition: Condition, depth: Int) throws(SOQLError) -> String {
        guard depth < Self.maximumDepth else { throw SOQLError.tooComplicated() }
        switch condition {
        case .and(let operands):
            return balancedJoin(try operands.map { operand throws(SOQLError) in try compile(operand, depth: depth + 1) }, "AND")
        case .or(let operands):
            return balancedJoin(try operands.map { operand throws(SOQLError) in try compile(operand, depth: depth + 1) }, "OR")
        case .not(let inner): return "NOT (" + (try compile(inner, depth: depth + 1)) + ")"
        case .group(let inner): return "(" + (try compile(inner, depth: depth + 1)) + ")"
        case .comparison(let path, let op, let literal): return try comparison(path, op, literal)
        case .like(let path, let pattern):
            let resolved = try resolve(path)
            guard resolved.field.type.isText || resolved.field.type == .id || resolved.field.type == .reference,
                case .string(_, let likePattern) = pattern
            else {
                throw SOQLError(.invalidField, "invalid operator on field: \(resolved.field.name)", at: path.location)
            }
            return arguments.dialect.caseInsensitiveLike(resolved.expression, arguments.bind(.text(likePattern))) + " ESCAPE '\\'"
        case .inList(let path, let negated, let values):
            let resolved = try resolve(path)
            var bound: [String] = []
            for value in values {
                guard let stored = try storage(value, for: resolved.field, path: path) else { continue }
                bound.append(arguments.bind(stored))
            }
            if bound.isEmpty { return negated ? "1 = 1" : "1 = 0" }
            return "\(resolved.expression) \(negated ? "NOT IN" : "IN") (\(bound.joined(separator: ", ")))"
        case .inSubquery(let path, let negated, let join): return try inSubquery(path, negated: negated, join, depth: depth)
        case .functionComparison(let call, let op, let literal):
            let compiled = try FunctionSQL(from: from, dialect: arguments.dialect).compile(call, context: functionContext)
            if case .null = literal {
                guard op == .equal || op == .notEqual else { throw FunctionSQL.error("unexpected token: null", call) }
                return "\(compiled.sql) IS \(op == .equal ? "" : "NOT ")NULL"
            }
            let value = try Self.functionValue(literal, call, type: compiled.type)
            let placeholder = arguments.bind(value)
            return op == .notEqual
                ? "(\(compiled.sql) IS NULL OR \(compiled.sql) <> \(placeholder))" : "\(compiled.sql) \(op.rawValue) \(placeholder)"
        case .functionInList(let call, let negated, let values):
            let compiled = try FunctionSQL(from: from, dialect: arguments.dialect).compile(call, context: functionContext)
            let list = try values.map { value throws(SOQLError) in arguments.bind(try Self.functionValue(value, call, type: compiled.type))
            }
            return negated
                ? "(\(compiled.sql) IS NULL OR \(compiled.sql) NOT IN (\(list.joined(separator: ", "))))"
                : "\(compiled.sql) IN (\(list.joined(separator: ", ")))"
        case .includes(let path, let excludes, let values): return try includes(path, excludes: excludes, values)
        }
    }

    /// `field [NOT] IN (SELECT …)`: a semi-join on the inner object's live records.
    private func inSubquery(_ path: FieldPath, negated: Bool, _ join: SemiJoin, depth: Int) throws(SOQLError) -> String {
        let resolved = try resolve(path)
        guard let object = from.schema.object(named: join.object) else { throw Self.unknownObject(join.object, path.location) }
        let inner = FromContext(schema: from.schema, object: object, alias: from.alias + "s")
        let selected = try inner.resolve(join.field)
        var sql = "SELECT \(selected.expression) FROM "
        let innerCompiler = ConditionCompiler(from: inner, arguments: arguments, now: now)
        // The inner FROM (with joins) is only known after compiling its condition, but its
        // arguments must come first in text order only if it binds any: FROM binds nothing.
        let filter = try join.condition.map { condition throws(SOQLError) in try innerCompiler.compile(condition, depth: depth + 1) }
        sql += inner.sql + " WHERE \(inner.alias).\"IsDeleted\" = 0" + (filter.map { " AND (\($0))" } ?? "")
        return "\(resolved.expression) \(negated ? "NOT IN" : "IN") (\(sql))"
    }

    /// `INCLUDES` / `EXCLUDES` on a multi-select picklist: each value is items joined by `;`,
    /// all of which must be selected.
    private func includes(_ path: FieldPath, excludes: Bool, _ values: [String]) throws(SOQLError) -> String {
        let resolved = try resolve(path)
        guard resolved.field.type == .multipicklist else {
            throw SOQLError(.invalidField, "includes or excludes operator only valid on multipicklist field", at: path.location)
        }
        // An empty value names no item: it matches nothing.
        let alternatives = values.map { value in
            let items = value.split(separator: ";")
            return items.isEmpty
                ? "1 = 0"
                : balancedJoin(
                    items.map { item in
                        arguments.dialect.caseInsensitiveLike(
                            "(';' || \(resolved.expression) || ';')",
                            arguments.bind(.text("%;" + String(item).trimmingCharacters(in: .whitespaces).likeEscaped + ";%")))
                            + " ESCAPE '\\'"
                    }, "AND")
        }
        let any = balancedJoin(alternatives, "OR")
        return excludes ? "(\(resolved.expression) IS NULL OR NOT \(any))" : any
    }

    private func comparison(_ path: FieldPath, _ op: ComparisonOperator, _ literal: Literal) throws(SOQLError) -> String {
        let resolved = try resolve(path)
        let column = resolved.expression
        if case .null = literal {
            switch op {
            case .equal: return "\(column) IS NULL"
            case .notEqual: return "\(column) IS NOT NULL"
            default: throw SOQLError(.malformedQuery, "unexpected token: null", at: path.location)
            }
        }
        if case .dateLiteral(let dateLiteral) = literal {
            let range = dateLiteral.range(relativeTo: now)
            let start: SQLValue
            let end: SQLValue
            switch resolved.field.type {
            case .datetime:
                start = .integer(try Self.milliseconds(range.lowerBound, path))
                end = .integer(try Self.milliseconds(range.upperBound, path))
            case .date:
                start = .text(SalesforceTime.formatDate(days: try Self.milliseconds(range.lowerBound, path) / 86_400_000))
                end = .text(SalesforceTime.formatDate(days: try Self.milliseconds(range.upperBound, path) / 86_400_000))
            default:
                throw SOQLError(
                    .invalidField,
                    "value of filter criterion for field '\(resolved.field.name)' must be of type \(resolved.field.type.rawValue) and should not be enclosed in quotes",
                    at: path.location)
            }
            switch op {
            case .equal: return "(\(column) >= \(arguments.bind(start)) AND \(column) < \(arguments.bind(end)))"
            case .notEqual: return "(\(column) IS NULL OR \(column) < \(arguments.bind(start)) OR \(column) >= \(arguments.bind(end)))"
            case .lessThan: return "\(column) < \(arguments.bind(start))"
            case .lessThanOrEqual: return "\(column) < \(arguments.bind(end))"
            case .greaterThan: return "\(column) >= \(arguments.bind(end))"
            case .greaterThanOrEqual: return "\(column) >= \(arguments.bind(start))"
            }
        }
        guard let value = try storage(literal, for: resolved.field, path: path) else {
            // An empty id never matches.
            return op == .notEqual ? "\(column) IS NOT NULL" : "1 = 0"
        }
        let placeholder = arguments.bind(value)
        switch op {
        case .notEqual: return "(\(column) IS NULL OR \(column) <> \(placeholder))"
        default: return "\(column) \(op.rawValue) \(placeholder)"
        }
    }

    /// A literal as the stored value it is compared with; `nil` for an empty id.
    private func storage(_ literal: Literal, for field: FieldDefinition, path: FieldPath) throws(SOQLError) -> SQLValue? {
        func mismatch(_ expected: String) -> SOQLError {
            SOQLError(
                .invalidField,
                "value of filter criterion for field '\(field.name)' must be of type \(expected) and should not be enclosed in quotes",
                at: path.location)
        }
        switch (field.type, literal) {
        case (_, .null):
            return .null
        case (.id, .string(let text, _)), (.reference, .string(let text, _)):
            if text.isEmpty { return nil }
            guard let id = SalesforceId(text) else {
                throw SOQLError(.invalidField, "invalid ID field: \(text)", at: path.location)
            }
            return .text(id.value)
        case (let type, .string(let text, _)) where type.isText:
            return .text(text)
        case (.boolean, .boolean(let bool)):
            return .integer(bool ? 1 : 0)
        case (let type, .number(let text)) where type.isNumber:
            if type == .int, let int = Int64(text) { return .integer(int) }
            guard let double = Double(text) else { throw mismatch(type.rawValue) }
            return .real(double)
        case (.currency, .currency(let amount)):
            // A single-currency org in USD: amounts in its currency compare as numbers.
            guard amount.uppercased().hasPrefix("USD"), let double = Double(amount.dropFirst(3)), double.isFinite else {
                throw SOQLError(.invalidField, "invalid currency amount \(amount): the org's only currency is USD", at: path.location)
            }
            return .real(double)
        case (.date, .date(let text)):
            guard SalesforceTime.isDate(text) else { throw mismatch("date") }
            return .text(text)
        case (.datetime, .dateTime(let text)):
            guard let millis = SalesforceTime.parse(text) else { throw mismatch("dateTime") }
            return .integer(millis)
        case (.date, _):
            throw mismatch("date")
        case (.datetime, _):
            throw mismatch("dateTime")
        case (let type, .string) where type.isNumber || type == .boolean:
            throw mismatch(type.rawValue)
        case (let type, _) where type.isText:
            throw SOQLError(
                .invalidField,
                "value of filter criterion for field '\(field.name)' must be of type string and should be enclosed in quotes",
                at: path.location)
        default:
            throw mismatch(field.type.rawValue)
        }
    }

    /// A date literal's bound in milliseconds since 1970, checked (never a trapping conversion).
    private static func milliseconds(_ date: Date, _ path: FieldPath) throws(SOQLError) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded(.down)
        guard let millis = Int64(exactly: value) else {
            throw SOQLError(.numberOutsideValidRange, "date literal out of range", at: path.location)
        }
        return millis
    }

    static func unknownObject(_ name: String, _ location: SourceLocation?) -> SOQLError {
        SOQLError(
            .invalidType,
            "sObject type '\(name)' is not supported. If you are attempting to use a custom object, be sure to append the '__c' after the entity name. Please reference your WSDL or the describe call for the appropriate names.",
            at: location)
    }
}

extension String {
    /// Escapes LIKE wildcards and the escape character itself (escape character `\`).
    var likeEscaped: String {
        var result = ""
        for character in self {
            if character == "\\" || character == "%" || character == "_" { result.append("\\") }
            result.append(character)
        }
        return result
    }
}
