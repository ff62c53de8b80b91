import GRDB

/// The SQL of one page upsert for one soup and option set.
struct PageUpsertPlan {
    let soup: Soup
    let idColumn: String
    let idPath: String
    let arrayPath: String
    let skipDirty: Bool
    /// Skip records whose `timestampPath` value equals the existing entry's when that entry's
    /// field of this name (one of `setFields`) already holds the value set, or it is dirty.
    let skipUnchangedField: String?
    /// Skip records whose `timestampPath` value is before the existing entry's.
    let keepNewer: Bool
    let deduplicate: Bool
    let timestampPath: String?
    let setFields: [(key: String, value: JSONValue)]
    let removeFields: [String]

    init(
        soup: Soup, idColumn: String, idPath: String, arrayPath: String, skipDirty: Bool, skipUnchangedField: String? = nil,
        keepNewer: Bool = false, deduplicate: Bool, timestampPath: String? = nil, setFields: [String: JSONValue], removeFields: [String]
    ) {
        self.skipUnchangedField = skipUnchangedField
        self.keepNewer = keepNewer
        self.deduplicate = deduplicate
        self.timestampPath = timestampPath
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
        return StatementArguments(databaseValues: values)
    }

    private func setFieldParameter(_ key: String) -> String? {
        setFields.firstIndex { $0.key == key }.map { "json(?\($0 + 4))" }
    }

    /// The existing entry's id expression, with the soup table aliased `e`.
    private var existingIdExpression: String { Self.existingIdExpression(idColumn: idColumn, idPath: idPath) }

    /// The id expression of an existing entry, the soup table aliased `e`: its id column, or
    /// `json_extract` for a json1 index.
    static func existingIdExpression(idColumn: String, idPath: String) -> String {
        idColumn.hasPrefix("json_extract(soup") ? Soup.jsonExtract(idPath, column: "e.soup") : "e." + idColumn
    }

    /// Whether the existing entry `e` is dirty, NULL-safe: a missing `__local__` is clean.
    static let existingIsDirty = "coalesce(json_extract(e.soup, '$.__local__') IN (1, '1', 'true'), 0)"

    var upsertSQL: String {
        let table = soup.tableName
        var document = "v"
        if !removeFields.isEmpty {
            document = "json_remove(v" + removeFields.map { ", '$.\($0)'" }.joined() + ")"
        }
        let sets =
            ["'$._soupEntryId', rid", "'$._soupLastModifiedDate', ?2"]
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
        // NULL-safe: a missing timestamp is never equal.
        let dirty = Self.existingIsDirty
        var skipped: [String] = []
        if skipDirty { skipped.append(dirty) }
        if let field = skipUnchangedField, let parameter = setFieldParameter(field), let timestampPath {
            let sameStamp = "coalesce(json_extract(e.soup, '$.\(timestampPath)') = json_extract(value, '$.\(timestampPath)'), 0)"
            let sameMark = "coalesce(json_extract(e.soup, '$.\(field)') = json_extract(\(parameter), '$'), 0)"
            skipped.append("(\(sameStamp) AND (\(sameMark) OR \(dirty)))")
        }
        if keepNewer, let timestampPath {
            skipped.append("coalesce(json_extract(e.soup, '$.\(timestampPath)') > json_extract(value, '$.\(timestampPath)'), 0)")
        }
        let dirtyFilter = skipped.isEmpty ? "" : "WHERE NOT (e.id IS NOT NULL AND (\(skipped.joined(separator: " OR "))))"
        // Only when two records share an id: keep the last occurrence.
        // Inlined on purpose (no CTE): measured faster than materialising the page first.
        let source =
            deduplicate
            ? "(SELECT key, value FROM json_each(?1, '\(arrayPath)') WHERE key IN (SELECT max(key) FROM json_each(?1, '\(arrayPath)') GROUP BY json_extract(value, '$.\(idPath)')))"
            : "json_each(?1, '\(arrayPath)')"
        // An object at the records path would make json_each iterate its members: array
        // elements are the rows whose key is an integer.
        let elementsOnly = deduplicate ? "" : "WHERE typeof(key) = 'integer'"
        return """
            INSERT INTO \(table) (id, soup, created, lastModified\(columns.map { ", " + $0 }.joined()))
            SELECT rid, \(soupExpression), ?2, ?2\(projections.map { ", " + $0 }.joined())
            FROM (SELECT value AS v, coalesce(e.id, ?3 + key + 1) AS rid
                  FROM (SELECT key, value FROM \(source) \(elementsOnly)) LEFT JOIN \(table) e
                  ON \(existingIdExpression) = json_extract(value, '$.\(idPath)') \(dirtyFilter))
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

    /// Refreshes the FTS rows of the given entries of `soup` (?1: a JSON array of entry ids).
    static func fullTextByIdsSQL(_ soup: Soup) -> String? {
        guard let fts = soup.ftsTableName else { return nil }
        let columns = soup.fullTextSpecs.compactMap(\.columnName).joined(separator: ", ")
        return """
            INSERT OR REPLACE INTO \(fts) (rowid, \(columns))
            SELECT id, \(columns) FROM \(soup.tableName) WHERE id IN (SELECT value FROM json_each(?1))
            """
    }
}
