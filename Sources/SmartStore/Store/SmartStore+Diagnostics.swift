import FastJSON
import GRDB

extension SmartStore {
    /// The store's size in bytes: its pages, the ones still in the write-ahead log included
    /// (the SDK's `databaseSize()`, which does not throw either); 0 when the store cannot be read.
    public func databaseSize() -> UInt64 {
        let size = try? read { db in
            let pages = try UInt64.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            let pageSize = try UInt64.fetchOne(db, sql: "PRAGMA page_size") ?? 0
            return pages.multipliedReportingOverflow(by: pageSize).partialValue
        }
        return size ?? 0
    }

    /// How SQLite runs a query: the SQL it translates to, and SQLite's plan (`EXPLAIN QUERY
    /// PLAN`), as the SDK's `lastExplainQueryPlan` gives it:
    /// `{"sql": …, "plan": [{"id": 2, "parent": 0, "detail": "SEARCH TABLE_1 USING INDEX …"}]}`.
    /// The SDK captures the plan of every query when asked; here it is one call, for the query
    /// that needs it.
    public func explainQueryPlan(_ spec: QuerySpec, arguments: [JSONValue]? = nil) throws -> JSONValue {
        let bound = try Self.pagedArguments(for: spec, arguments, pageIndex: 0)
        return try read { db in
            let translation = try self.translation(db, spec.smartSql)
            do {
                let rows = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + translation.pagedSQL, arguments: bound)
                let plan: [JSONValue] = rows.map { row in
                    [
                        "id": .int(row["id"] ?? 0), "parent": .int(row["parent"] ?? 0),
                        "detail": .string(row["detail"] ?? ""),
                    ]
                }
                return ["sql": .string(translation.sql), "plan": .array(plan)]
            } catch let error as DatabaseError {
                throw queryFailure(error, sql: translation.sql)
            }
        }
    }
}
