import GRDB

extension SmartStore {
    /// Upserts a page of records, given as raw JSON bytes, inside SQLite: the sync-down hot path.
    ///
    /// The page (e.g. a REST query response `{"totalSize":…,"records":[…]}`) is handed to
    /// SQLite as text; one `INSERT … SELECT … FROM json_each(…) ON CONFLICT(id) DO UPDATE`
    /// statement matches records to entries by the indexed `idPath`, sets `_soupEntryId`,
    /// `_soupLastModifiedDate` and `setFields` with `json_set`, projects index columns with
    /// `json_extract`, and writes the page. Records are never decoded in Swift.
    ///
    /// Index paths are projected with `json_extract`, so a path through an array (which
    /// ``JSONValue/value(atPath:)`` flattens) is stored as `NULL` on this path.
    ///
    /// - Parameters:
    ///   - page: UTF-8 JSON text of the page.
    ///   - recordsPath: where the records array is in the page (`records`; empty for a top-level array).
    ///   - idPath: the record id path; must be indexed (a record without it is an error).
    ///   - timestampPath: path whose maximum is reported (e.g. `LastModifiedDate`).
    ///   - skipDirty: leave entries whose `__local__` is true untouched (LEAVE_IF_CHANGED).
    ///   - setFields: top-level fields written into every record (bookkeeping such as `__local__: false`).
    ///   - removeFields: top-level fields removed from every record (e.g. `__last_error__`).
    /// - Throws: ``SmartStoreError/malformedJSON(_:)`` for invalid JSON or a missing records
    ///   array, ``SmartStoreError/emptyExternalId(path:)`` when a record has no id,
    ///   ``SmartStoreError/noIndexForPath(soup:path:)`` when `idPath` is not indexed. Nothing is
    ///   written when an error is thrown.
    @discardableResult
    public func ingestPage(
        _ page: some Collection<UInt8> & Sendable, into soupName: String, recordsPath: String = "records", idPath: String = "Id",
        timestampPath: String? = "LastModifiedDate", skipDirty: Bool = false,
        setFields: [String: JSONValue] = [:], removeFields: [String] = []
    ) throws -> PageIngestResult {
        for path in [idPath] + (timestampPath.map { [$0] } ?? []) + Array(setFields.keys) + removeFields {
            try Identifiers.validatePath(path)
        }
        if !recordsPath.isEmpty { try Identifiers.validatePath(recordsPath) }
        let arrayPath = recordsPath.isEmpty ? "$" : "$." + recordsPath
        let text = String(decoding: page, as: UTF8.self)
        return try write { db in
            let soup = try requireSoup(db, named: soupName)
            guard let idColumn = soup.indexSpec(forPath: idPath)?.columnName else {
                throw SmartStoreError.noIndexForPath(soup: soupName, path: idPath)
            }
            let summary = try PageSummary.read(db, text: text, arrayPath: arrayPath, idPath: idPath, timestampPath: timestampPath)
            guard summary.missingIds == 0 else { throw SmartStoreError.emptyExternalId(path: idPath) }
            guard summary.received > 0 else {
                return PageIngestResult(received: 0, written: 0, skipped: 0, maxTimestamp: nil, recordsWithoutTimestamp: 0)
            }
            let plan = PageUpsertPlan(soup: soup, idColumn: idColumn, idPath: idPath, arrayPath: arrayPath, skipDirty: skipDirty,
                                      deduplicate: summary.hasDuplicateIds, setFields: setFields, removeFields: removeFields)
            let base = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = ?", arguments: [soup.tableName]) ?? 0
            let now = Self.now()
            try db.execute(sql: plan.upsertSQL, arguments: plan.arguments(text: text, now: now, base: base))
            let written = db.changesCount
            if let ftsSQL = plan.fullTextSQL {
                try db.execute(sql: ftsSQL, arguments: [text, now])
            }
            return PageIngestResult(received: summary.received, written: written, skipped: summary.received - written,
                                    maxTimestamp: summary.maxTimestamp, recordsWithoutTimestamp: summary.missingTimestamps)
        }
    }
}

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
        return PageSummary(received: received, missingIds: row[2], maxTimestamp: row[3], missingTimestamps: row[4],
                           hasDuplicateIds: (row[6] as Int) < received)
    }
}

/// The SQL of one page upsert for one soup and option set.
struct PageUpsertPlan {
    let soup: Soup
    let idColumn: String
    let idPath: String
    let arrayPath: String
    let skipDirty: Bool
    let deduplicate: Bool
    let setFields: [(key: String, value: JSONValue)]
    let removeFields: [String]

    init(soup: Soup, idColumn: String, idPath: String, arrayPath: String, skipDirty: Bool, deduplicate: Bool,
         setFields: [String: JSONValue], removeFields: [String]) {
        self.deduplicate = deduplicate
        self.soup = soup
        self.idColumn = idColumn
        self.idPath = idPath
        self.arrayPath = arrayPath
        self.skipDirty = skipDirty
        self.setFields = setFields.sorted { $0.key < $1.key }
        self.removeFields = removeFields
    }

    /// ?1 page text, ?2 now, ?3 sequence base, ?4… the JSON text of each set field.
    func arguments(text: String, now: Int64, base: Int64) -> StatementArguments {
        var values: [DatabaseValue] = [text.databaseValue, now.databaseValue, base.databaseValue]
        values += setFields.map { $0.value.jsonString.databaseValue }
        return StatementArguments(values)
    }

    private func setFieldParameter(_ key: String) -> String? {
        setFields.firstIndex { $0.key == key }.map { "json(?\($0 + 4))" }
    }

    /// The existing entry's id expression, with the soup table aliased `e`.
    private var existingIdExpression: String {
        idColumn.hasPrefix("json_extract(soup") ? Soup.jsonExtract(idPath, column: "e.soup") : "e." + idColumn
    }

    var upsertSQL: String {
        let table = soup.tableName
        var document = "v"
        if !removeFields.isEmpty {
            document = "json_remove(v" + removeFields.map { ", '$.\($0)'" }.joined() + ")"
        }
        let sets = ["'$._soupEntryId', rid", "'$._soupLastModifiedDate', ?2"]
            + setFields.compactMap { field in setFieldParameter(field.key).map { "'$.\(field.key)', \($0)" } }
        let soupExpression = "json_set(\(document), \(sets.joined(separator: ", ")))"
        var columns: [String] = []
        var projections: [String] = []
        for spec in soup.columnSpecs {
            guard let column = spec.columnName else { continue }
            columns.append(column)
            if let parameter = setFieldParameter(spec.path) {
                projections.append("json_extract(\(parameter), '$')")
            } else if removeFields.contains(spec.path) {
                projections.append("NULL")
            } else {
                projections.append("json_extract(v, '$.\(spec.path)')")
            }
        }
        // New entries take id base + position + 1: unique, increasing, and computable without a
        // window function (ids consumed by records that update existing entries are simply skipped).
        let dirtyFilter = skipDirty ? "WHERE NOT (e.id IS NOT NULL AND json_extract(e.soup, '$.__local__') IN (1, '1', 'true'))" : ""
        // Only when two records share an id: keep the last occurrence.
        // Inlined on purpose (no CTE): measured faster than materialising the page first.
        let source = deduplicate
            ? "(SELECT key, value FROM json_each(?1, '\(arrayPath)') WHERE key IN (SELECT max(key) FROM json_each(?1, '\(arrayPath)') GROUP BY json_extract(value, '$.\(idPath)')))"
            : "json_each(?1, '\(arrayPath)')"
        return """
            INSERT INTO \(table) (id, soup, created, lastModified\(columns.map { ", " + $0 }.joined()))
            SELECT rid, \(soupExpression), ?2, ?2\(projections.map { ", " + $0 }.joined())
            FROM (SELECT value AS v, coalesce(e.id, ?3 + key + 1) AS rid
                  FROM \(source) LEFT JOIN \(table) e ON \(existingIdExpression) = json_extract(value, '$.\(idPath)') \(dirtyFilter))
            WHERE true
            ON CONFLICT(id) DO UPDATE SET soup = excluded.soup, lastModified = excluded.lastModified\(columns.map { ", \($0) = excluded.\($0)" }.joined())
            """
    }

    /// Refreshes the FTS rows of the entries the page touched (?1 page text, ?2 now).
    var fullTextSQL: String? {
        guard let fts = soup.ftsTableName else { return nil }
        let columns = soup.fullTextSpecs.compactMap(\.columnName).joined(separator: ", ")
        return """
            INSERT OR REPLACE INTO \(fts) (rowid, \(columns))
            SELECT id, \(columns) FROM \(soup.tableName)
            WHERE lastModified = ?2 AND \(idColumn) IN (SELECT json_extract(value, '$.\(idPath)') FROM json_each(?1, '\(arrayPath)'))
            """
    }
}
