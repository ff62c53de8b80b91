import GRDB

extension SmartStore {
    /// Sets one top-level field of these entries to `value` (or removes it, for `nil`), and
    /// returns how many entries changed.
    ///
    /// Meant for bookkeeping marks on many entries (a sync stamps records before it sends them):
    /// when no index spec involves the field, it is one SQL statement that neither reads nor
    /// re-encodes the entries (`json_set` on the stored text). An indexed field goes through
    /// ``upsert(_:in:externalIdPath:)-9jpjf`` so index columns and full-text rows follow.
    /// `_soupLastModifiedDate` is updated either way. Missing ids are skipped.
    ///
    /// - Throws: ``SmartStoreError/invalidPath(_:)`` unless `field` is one valid path component.
    @discardableResult
    public func setField(_ field: String, to value: JSONValue?, entryIds: [Int64], in soupName: String) throws -> Int {
        try write(try settingField(field, in: soupName, groups: [(value, entryIds)]))
    }

    /// Sets a field without blocking the caller's thread; see ``setField(_:to:entryIds:in:)``.
    @discardableResult
    public func setField(_ field: String, to value: JSONValue?, entryIds: [Int64], in soupName: String) async throws -> Int {
        try await write(try settingField(field, in: soupName, groups: [(value, entryIds)]))
    }

    /// Sets one top-level field of each entry to its own value, in one transaction (see
    /// ``setField(_:to:entryIds:in:)-3xp9x`` for how); returns how many entries changed.
    @discardableResult
    public func setField(_ field: String, values: [Int64: JSONValue], in soupName: String) throws -> Int {
        try write(try settingField(field, in: soupName, values: values))
    }

    /// Sets a field of each entry without blocking the caller's thread; see ``setField(_:values:in:)``.
    @discardableResult
    public func setField(_ field: String, values: [Int64: JSONValue], in soupName: String) async throws -> Int {
        try await write(try settingField(field, in: soupName, values: values))
    }

    /// Validates the field and returns the transaction's work for values of each entry: one
    /// statement per 500 entries when no index involves the field.
    private func settingField(_ field: String, in soupName: String, values: [Int64: JSONValue]) throws
        -> @Sendable (Database) throws -> Int
    {
        try Self.validateField(field)
        return { db in
            let soup = try self.requireSoup(db, named: soupName)
            let now = try Self.stamp(db)
            if let capture = soup.capture, capture.flagPath == field, !Self.isIndexed(field, in: soup) {
                for setting in [true, false] {
                    let ids = values.filter { ShadowSchema.isSet($0.value) == setting }.map(\.key)
                    try ShadowSchema.beforeWrite(db, soup: soup, capture: capture, ids: ids, setting: setting)
                }
            }
            guard !Self.isIndexed(field, in: soup) else {
                return try values.reduce(0) { changed, entry in
                    try changed + Self.setIndexedField(field, to: entry.value, entryIds: [entry.key], soup: soup, db: db, now: now)
                }
            }
            // ?2: an object from entry id to the JSON text of its value (text, so that json()
            // reads back booleans and strings as themselves).
            let statement = try db.cachedStatement(
                sql: """
                    UPDATE \(soup.tableName) SET soup = json_set(soup, ?, json(j.value), '$._soupLastModifiedDate', ?), lastModified = ?
                    FROM json_each(?) AS j WHERE \(soup.tableName).id = j.key
                    """)
            var changed = 0
            for chunk in Array(values).chunked(by: 500) {
                let texts = JSONValue.object(
                    Dictionary(chunk.map { (String($0.key), JSONValue.string($0.value.jsonString)) }) { first, _ in first })
                try statement.execute(
                    arguments: StatementArguments(databaseValues: [
                        Self.jsonPath(field).databaseValue, now.databaseValue, now.databaseValue, texts.jsonString.databaseValue,
                    ]))
                changed += db.changesCount
            }
            return changed
        }
    }

    /// Validates the field and returns the transaction's work.
    private func settingField(_ field: String, in soupName: String, groups: [(value: JSONValue?, entryIds: [Int64])]) throws
        -> @Sendable (Database) throws -> Int
    {
        try Self.validateField(field)
        return { db in
            let soup = try self.requireSoup(db, named: soupName)
            let indexed = Self.isIndexed(field, in: soup)
            let now = try Self.stamp(db)
            var changed = 0
            for (value, entryIds) in groups {
                if let capture = soup.capture, capture.flagPath == field, !indexed {
                    try ShadowSchema.beforeWrite(db, soup: soup, capture: capture, ids: entryIds, setting: ShadowSchema.isSet(value))
                }
                changed +=
                    try indexed
                    ? Self.setIndexedField(field, to: value, entryIds: entryIds, soup: soup, db: db, now: now)
                    : Self.setField(field, to: value, entryIds: entryIds, soup: soup, db: db, now: now)
            }
            return changed
        }
    }

    /// One top-level field, not a bookkeeping one.
    private static func validateField(_ field: String) throws {
        try Identifiers.validatePath(field)
        guard !field.contains("."), !field.hasPrefix("_soup") else { throw SmartStoreError.invalidPath(field) }
    }

    /// Whether an index spec involves `field` (then index columns and full-text rows must follow).
    private static func isIndexed(_ field: String, in soup: Soup) -> Bool {
        soup.indexSpecs.contains { $0.path == field || $0.path.hasPrefix(field + ".") }
    }

    /// The field's JSON path, bound as an argument with the field quoted inside it: no text of
    /// the caller reaches the SQL.
    private static func jsonPath(_ field: String) -> String {
        "$.\"" + field + "\""
    }

    private static func setIndexedField(_ field: String, to value: JSONValue?, entryIds: [Int64], soup: Soup, db: Database, now: Int64)
        throws -> Int
    {
        var writer = EntryWriter(db: db, soup: soup, stamp: now)
        var changed = 0
        for chunk in entryIds.chunked(by: 500) {
            for (id, entry) in try entries(Array(chunk), soup: soup, db: db) {
                guard case .object(var members) = entry else { continue }
                members[field] = value
                _ = try writer.update(.object(members), id: id)
                changed += 1
            }
        }
        return changed
    }

    private static func setField(_ field: String, to value: JSONValue?, entryIds: [Int64], soup: Soup, db: Database, now: Int64) throws
        -> Int
    {
        let path = jsonPath(field)
        var changed = 0
        let change = value == nil ? "json_remove(soup, ?)" : "json_set(soup, ?, json(?))"
        // One text per soup and kind of change, so the statement is prepared once and cached.
        let statement = try db.cachedStatement(
            sql: """
                UPDATE \(soup.tableName) SET soup = json_set(\(change), '$._soupLastModifiedDate', ?), lastModified = ?
                WHERE id IN (SELECT value FROM json_each(?))
                """)
        for chunk in entryIds.chunked(by: 500) {
            var arguments: [DatabaseValue] = [path.databaseValue]
            if let value { arguments.append(value.jsonString.databaseValue) }
            arguments += [now.databaseValue, now.databaseValue, idArray(chunk).databaseValue]
            try statement.execute(arguments: StatementArguments(databaseValues: arguments))
            changed += db.changesCount
        }
        return changed
    }

    /// The JSON array text of entry ids, bound where SQL reads `json_each(?)`.
    static func idArray(_ ids: some Collection<Int64>) -> String {
        "[" + ids.map(String.init).joined(separator: ",") + "]"
    }

    /// Entries by id, for a chunk of at most 500 ids (one cached statement whatever their number).
    static func entries(_ ids: [Int64], soup: Soup, db: Database) throws -> [(Int64, JSONValue)] {
        let statement = try db.cachedStatement(sql: "SELECT id, soup FROM \(soup.tableName) WHERE id IN (SELECT value FROM json_each(?))")
        let rows = try Row.fetchCursor(statement, arguments: [idArray(ids)])
        var result: [(Int64, JSONValue)] = []
        while let row = try rows.next() { result.append((row[0], try parseSoupColumn(row, at: 1))) }
        return result
    }
}
