import FastJSON
import Foundation
import SOQL

/// Runs SOQL against the record tables: first the ordered ids of every match (the snapshot a
/// cursor pages through), then, page by page, the selected columns of those ids and their
/// child subqueries, written straight to JSON.
struct QueryEngine {
    /// Records per page: Salesforce's default, and its most (`Sforce-Query-Options: batchSize`).
    static let defaultBatchSize = 2000
    /// The page sizes a client may ask for.
    static let batchSizes = 200...defaultBatchSize

    let schema: Schema
    let db: any SQLConnection
    let now: Date
    /// `queryAll`: include records in the recycle bin.
    let includeDeleted: Bool
    /// The user the query runs as (`USING SCOPE mine`); nil: scopes other than `everything`
    /// are refused.
    var userId: String? = nil
    /// Where cursors for the rest of long child lists go. With one, a parent's children beyond
    /// ``childBatchSize`` are paged (`done: false` + `nextRecordsUrl`, as Salesforce does);
    /// without one (record retrieves, composite), every child is written inline.
    var childCursors: ChildCursorSink? = nil
    /// Children written inline per parent before the rest is paged.
    static let childBatchSize = 200

    /// One parent's children for a subquery: how many in all, the first ones as JSON array
    /// contents, and the locator path of the rest (nil when all are inline).
    struct ChildResult {
        var total: Int
        var records: [UInt8]
        var next: String?
    }

    /// The matching ids in query order (LIMIT and OFFSET applied), or the count for `COUNT()`.
    struct Snapshot: Sendable {
        var ids: [String]
        var totalSize: Int
        var countOnly: Bool
    }

    private func object(for query: Query) throws(SOQLError) -> ObjectDefinition {
        guard let object = schema.object(named: query.object) else {
            throw ConditionCompiler.unknownObject(query.object, nil)
        }
        // Platform events are published, never stored: Salesforce refuses to query them.
        guard !object.isPlatformEvent else { throw SOQLError(.invalidType, "entity type \(object.name) does not support query") }
        return object
    }

    private func deletedFilter(_ alias: String) -> String? {
        includeDeleted ? nil : "\(alias).\"IsDeleted\" = 0"
    }

    /// An extra predicate written against the query's FROM (used by search).
    typealias ExtraFilter = (FromContext, SQLArguments) throws(SOQLError) -> String

    func snapshot(_ query: Query, extraFilter: ExtraFilter? = nil) throws(SOQLError) -> Snapshot {
        let query = try QuerySupport.prepared(query, schema: schema)
        let object = try object(for: query)
        guard !query.isAggregate else { throw SOQLError(.malformedQuery, "aggregate queries have no record ids") }
        let from = FromContext(schema: schema, object: object, alias: "t")
        let arguments = SQLArguments(dialect: db.dialect)
        // Resolve the select list first (on its own FROM, so its joins stay out of the id query)
        // so that unknown fields are reported even when nothing matches.
        var plan = SelectPlan()
        try plan.add(query.selectItems, from: FromContext(schema: schema, object: object, alias: "t"), dialect: db.dialect)
        for item in query.selectItems {
            if case .subquery(let subquery) = item { _ = try childRelationship(subquery, of: object) }
        }
        let filter = try query.condition.map { condition throws(SOQLError) in
            try ConditionCompiler(from: from, arguments: arguments, now: now).compile(condition)
        }
        let extra = try extraFilter.map { filter throws(SOQLError) in try filter(from, arguments) }
        let scope = try scopeFilter(query, from: from, arguments: arguments)
        let order = try orderClause(query.orderBy, from: from, alias: "t")
        let wherePart = whereClause([deletedFilter("t"), filter.map { "(\($0))" }, extra.map { "(\($0))" }, scope])
        if query.isCountOnly {
            let count = try run { try db.scalar("SELECT count(*) FROM \(from.sql)\(wherePart)", arguments.values)?.integer ?? 0 }
            let limited = query.limit.map { min(Int(count), $0) } ?? Int(count)
            return Snapshot(ids: [], totalSize: max(0, limited - (query.offset ?? 0)), countOnly: true)
        }
        var sql = "SELECT t.\"Id\" FROM \(from.sql)\(wherePart) ORDER BY \(order)"
        // Bound, not spliced: one statement text whatever the numbers (the statement cache stays small).
        if let limit = query.limit {
            sql += " LIMIT \(arguments.bind(.integer(Int64(limit))))"
        } else if query.offset != nil {
            sql += " " + db.dialect.unlimited
        }
        if let offset = query.offset { sql += " OFFSET \(arguments.bind(.integer(Int64(offset))))" }
        let ids = try run { try db.rows(sql, arguments.values).compactMap { $0.first?.text } }
        return Snapshot(ids: ids, totalSize: ids.count, countOnly: false)
    }

    /// The snapshot of a query and its first `batchSize` records as JSON array elements; for
    /// an aggregate query, all its rows (no ids, no cursor).
    func firstPage(_ query: Query, batchSize: Int, version: String) throws(SOQLError) -> (snapshot: Snapshot, records: [UInt8]) {
        let prepared = try QuerySupport.prepared(query, schema: schema)
        if prepared.isAggregate {
            let engine = AggregateEngine(schema: schema, db: db, now: now, includeDeleted: includeDeleted) {
                from, arguments throws(SOQLError) in try scopeFilter(prepared, from: from, arguments: arguments)
            }
            let result = try engine.run(prepared, object: try object(for: prepared))
            return (Snapshot(ids: [], totalSize: result.count, countOnly: false), result.records)
        }
        let snapshot = try snapshot(prepared)
        var writer = JSONWriter(reservingCapacity: 1 << 16)
        try writeRecords(query, ids: snapshot.ids.prefix(batchSize), version: version, to: &writer)
        return (snapshot, writer.bytes)
    }

    /// Writes the records with these ids (in this order) as JSON array elements.
    func writeRecords(_ query: Query, ids: ArraySlice<String>, version: String, to writer: inout JSONWriter) throws(SOQLError) {
        var first = true
        try eachRecord(query, ids: ids, version: version) { _, write in
            if !first { writer.write(punctuation: ",") }
            first = false
            write(&writer)
        }
    }

    /// The records with these ids (one query for all), in the order of `ids`, each handed to
    /// `body` with its id and what writes it as JSON; ids with no record are skipped.
    func eachRecord(
        _ query: Query, ids: ArraySlice<String>, version: String, _ body: (String, (inout JSONWriter) -> Void) -> Void
    ) throws(SOQLError) {
        guard !ids.isEmpty else { return }
        let query = try QuerySupport.prepared(query, schema: schema)
        let object = try object(for: query)
        let from = FromContext(schema: schema, object: object, alias: "t")
        var plan = SelectPlan()
        try plan.add(query.selectItems, from: from, dialect: db.dialect)
        let idColumn = plan.columns.count
        plan.columns.append("t.\"Id\"")
        let arguments = SQLArguments(dialect: db.dialect)
        let list = ids.map { arguments.bind(.text($0)) }.joined(separator: ", ")
        let sql =
            "SELECT \(plan.columns.joined(separator: ", ")) FROM \(from.sql)" + whereClause([deletedFilter("t"), "t.\"Id\" IN (\(list))"])
        let rows = try run { try db.rows(sql, arguments.values) }
        var byId: [String: [SQLValue]] = [:]
        for row in rows { if let id = row[idColumn].text { byId[id] = row } }

        var children: [[String: ChildResult]] = []
        for item in query.selectItems {
            guard case .subquery(let subquery) = item else { continue }
            plan.shape.addChildren(try childRelationship(subquery, of: object).name, subquery: children.count)
            children.append(try childRecords(subquery, of: object, parentIds: Array(ids), version: version))
        }
        let reader = TypeOfReader(schema: schema, db: db)
        let related = try plan.typeOfs.map { item throws(SOQLError) in
            try reader.related(item.typeOf, field: item.field, ids: Set(rows.compactMap { $0[item.column].text }), version: version)
        }
        for id in ids {
            guard let row = byId[id] else { continue }
            body(id) { writer in
                RecordJSON.write(
                    row: row, shape: plan.shape, object: object.name, id: id, version: version, children: children, related: related,
                    to: &writer)
            }
        }
    }

    private func childRelationship(_ subquery: Subquery, of object: ObjectDefinition) throws(SOQLError) -> Schema.ChildRelationship {
        guard let relationship = schema.childRelationship(subquery.relationship, of: object.name) else {
            throw SOQLError(
                .invalidType,
                "Didn't understand relationship '\(subquery.relationship)' in FROM part of query call. If you are attempting to use a custom relationship, be sure to append the '__r' after the custom relationship name. Please reference your WSDL or the describe call for the appropriate names."
            )
        }
        return relationship
    }

    /// The child records of each parent, as JSON array contents, with their counts; long
    /// lists are cut at ``childBatchSize`` with a cursor over all of that parent's children.
    private func childRecords(_ subquery: Subquery, of parent: ObjectDefinition, parentIds: [String], version: String)
        throws(SOQLError) -> [String: ChildResult]
    {
        let relationship = try childRelationship(subquery, of: parent)
        guard let child = schema.object(named: relationship.childObject) else { return [:] }
        let from = FromContext(schema: schema, object: child, alias: "c")
        var plan = SelectPlan()
        try plan.add(subquery.items, from: from, dialect: db.dialect)
        let parentColumn = plan.columns.count
        plan.columns.append("c.\(SQLDialect.quote(relationship.field))")
        let idColumn = plan.columns.count
        plan.columns.append("c.\"Id\"")
        let arguments = SQLArguments(dialect: db.dialect)
        let filter = try subquery.condition.map { condition throws(SOQLError) in
            try ConditionCompiler(from: from, arguments: arguments, now: now).compile(condition)
        }
        let list = parentIds.map { arguments.bind(.text($0)) }.joined(separator: ", ")
        let order = try orderClause(subquery.orderBy, from: from, alias: "c")
        let wherePart = whereClause([
            deletedFilter("c"), "c.\(SQLDialect.quote(relationship.field)) IN (\(list))", filter.map { "(\($0))" },
        ])
        let rows = try run {
            try db.rows("SELECT \(plan.columns.joined(separator: ", ")) FROM \(from.sql)\(wherePart) ORDER BY \(order)", arguments.values)
        }
        let reader = TypeOfReader(schema: schema, db: db)
        let related = try plan.typeOfs.map { item throws(SOQLError) in
            try reader.related(item.typeOf, field: item.field, ids: Set(rows.compactMap { $0[item.column].text }), version: version)
        }
        var grouped: [String: ChildResult] = [:]
        var allIds: [String: [String]] = [:]
        for row in rows {
            guard let parentId = row[parentColumn].text, let id = row[idColumn].text else { continue }
            var entry = grouped[parentId] ?? ChildResult(total: 0, records: [], next: nil)
            if let limit = subquery.limit, entry.total >= limit { continue }
            entry.total += 1
            if childCursors != nil { allIds[parentId, default: []].append(id) }
            if childCursors == nil || entry.total <= Self.childBatchSize {
                var writer = JSONWriter(reservingCapacity: 256)
                if entry.total > 1 { writer.write(punctuation: ",") }
                RecordJSON.write(
                    row: row, shape: plan.shape, object: child.name, id: id, version: version, children: [], related: related, to: &writer)
                entry.records += writer.bytes
            }
            grouped[parentId] = entry
        }
        if let sink = childCursors {
            let childQuery = Query(selectItems: subquery.items, object: child.name)
            for (parentId, ids) in allIds where ids.count > Self.childBatchSize {
                let locator = sink.add(
                    QueryCursors.Cursor(
                        query: childQuery, version: version, includeDeleted: includeDeleted,
                        batchSize: Self.childBatchSize, ids: IdList(ids), lastUsed: Date()))
                grouped[parentId]?.next = "/services/data/v\(version)/query/\(locator)-\(Self.childBatchSize)"
            }
        }
        return grouped
    }

    private func orderClause(_ items: [OrderItem], from: FromContext, alias: String) throws(SOQLError) -> String {
        var parts: [String] = []
        for item in items {
            guard let field = item.field else {
                throw SOQLError(.malformedQuery, "LocalForce does not run ORDER BY \(item.expression) yet")
            }
            let resolved = try from.resolve(field)
            let direction = item.direction == .descending ? "DESC" : "ASC"
            let nulls = item.nulls == .last ? "NULLS LAST" : "NULLS FIRST"
            // Ids sort byte-wise (they are case-sensitive), whatever the database's collation.
            let isId = resolved.field.type == .id || resolved.field.type == .reference
            parts.append("\(isId ? db.dialect.binaryOrder(resolved.expression) : resolved.expression) \(direction) \(nulls)")
        }
        parts.append("\(alias).\"Id\" ASC")
        return parts.joined(separator: ", ")
    }

    /// `USING SCOPE`: `everything` is every record (as without it), `mine` the records the
    /// query's user owns; LocalForce has no teams, territories or scoping rules for the others.
    private func scopeFilter(_ query: Query, from: FromContext, arguments: SQLArguments) throws(SOQLError) -> String? {
        guard let scope = query.scope?.lowercased(), scope != "everything" else { return nil }
        guard scope == "mine" || scope == "mine_and_my_groups" else {
            throw SOQLError(.malformedQuery, "LocalForce has no teams, territories or scoping rules: USING SCOPE \(query.scope ?? "")")
        }
        guard from.object.field(named: "OwnerId") != nil else {
            throw SOQLError(.malformedQuery, "USING SCOPE \(query.scope ?? "") needs an object with owners; \(from.object.name) has none")
        }
        guard let userId else { throw SOQLError(.malformedQuery, "USING SCOPE \(query.scope ?? "") needs the query's user") }
        return "\(from.alias).\"OwnerId\" = \(arguments.bind(.text(userId)))"
    }

    private func whereClause(_ parts: [String?]) -> String {
        let present = parts.compactMap { $0 }
        return present.isEmpty ? "" : " WHERE " + present.joined(separator: " AND ")
    }

    /// Database failures inside query execution are answered in Salesforce's terms, never the
    /// storage's (``StorageRefusal``).
    private func run<T>(_ body: () throws -> T) throws(SOQLError) -> T {
        do {
            return try body()
        } catch {
            throw StorageRefusal.soqlError(error)
        }
    }
}
