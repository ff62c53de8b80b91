import GRDB

/// Counts and checks a page before it is written.
struct PageSummary {
    var received: Int
    var missingIds: Int
    var maxTimestamp: String?
    var missingTimestamps: Int
    /// Whether two records of the page share an id (then only the last one is written).
    var hasDuplicateIds: Bool

    static func read(_ db: Database, text: String, arrayPath: String, idPath: String, timestampPath: String?) throws -> PageSummary {
        // The records are rendered once into a materialized CTE: every reference to json_each's
        // `value` would otherwise render and parse the record again (SQLite 3.40 measured: ~1 µs each).
        let timestamp = timestampPath.map { "json_extract(v, '$.\($0)')" } ?? "NULL"
        let sql = """
            WITH p AS MATERIALIZED (SELECT value AS v FROM json_each(?1, '\(arrayPath)'))
            SELECT json_type(?1, '\(arrayPath)'), count(v), count(v) - count(json_extract(v, '$.\(idPath)')),
                   CAST(max(\(timestamp)) AS TEXT), count(v) - count(\(timestamp)),
                   coalesce(sum(json_type(v) <> 'object'), 0), count(DISTINCT json_extract(v, '$.\(idPath)'))
            FROM p
            """
        let row: Row?
        do {
            row = try Row.fetchOne(db, sql: sql, arguments: [text])
        } catch let error as DatabaseError {
            throw SmartStoreError.malformedJSON("Page is not valid JSON: \(error.message ?? error.description)")
        }
        guard let row, let type: String = row[0], type == "array" else {
            throw SmartStoreError.malformedJSON("Page has no array of records at '\(arrayPath)'")
        }
        let nonObjects: Int = row[5]
        guard nonObjects == 0 else {
            throw SmartStoreError.malformedJSON("Page has \(nonObjects) record(s) that are not JSON objects")
        }
        let received: Int = row[1]
        return PageSummary(
            received: received, missingIds: row[2], maxTimestamp: row[3], missingTimestamps: row[4],
            hasDuplicateIds: (row[6] as Int) < received)
    }
}
