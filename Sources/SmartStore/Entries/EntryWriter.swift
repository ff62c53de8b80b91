import GRDB

/// Writes entries of one soup inside one write transaction.
///
/// Created per transaction: it reads the table's `sqlite_sequence` once and hands out the
/// following ids itself, so a batch of creates costs one statement per entry.
struct EntryWriter {
    let db: Database
    let soup: Soup
    /// The transaction's stamp (see `SmartStore.stamp(_:)`), taken at the first write: a
    /// writer made only for a lookup takes none.
    private var stamp: Int64?
    private var nextId: Int64?
    private let columnSpecs: [IndexSpec]
    private let ftsSpecs: [IndexSpec]
    /// The insert, update and full-text statements, built on first use once per transaction
    /// rather than per entry (a writer made only for a lookup builds none).
    private lazy var insertSQL: String = {
        let columns = columnSpecs.compactMap(\.columnName)
        return "INSERT INTO \(soup.tableName) (id, soup, created, lastModified" + columns.map { ", " + $0 }.joined()
            + ") VALUES (?, ?, ?, ?" + String(repeating: ", ?", count: columns.count) + ")"
    }()
    private lazy var updateSQL: String = {
        let columns = columnSpecs.compactMap(\.columnName)
        return "UPDATE \(soup.tableName) SET soup = ?, lastModified = ?" + columns.map { ", \($0) = ?" }.joined() + " WHERE id = ?"
    }()
    private lazy var fullTextSQL: String? = soup.ftsTableName.map { fts in
        let columns = ftsSpecs.compactMap(\.columnName)
        return "INSERT OR REPLACE INTO \(fts) (rowid, \(columns.joined(separator: ", "))) VALUES (?"
            + String(repeating: ", ?", count: columns.count) + ")"
    }

    init(db: Database, soup: Soup, stamp: Int64? = nil) {
        self.db = db
        self.soup = soup
        self.stamp = stamp
        self.columnSpecs = soup.columnSpecs
        self.ftsSpecs = soup.fullTextSpecs
    }

    private static func entryObject(_ entry: JSONValue) throws -> [String: JSONValue] {
        guard case .object(let members) = entry else {
            throw SmartStoreError.malformedJSON("A soup entry must be a JSON object")
        }
        return members
    }

    private mutating func now() throws -> Int64 {
        if let stamp { return stamp }
        let taken = try SmartStore.stamp(db)
        stamp = taken
        return taken
    }

    private mutating func allocateId() throws -> Int64 {
        let id: Int64
        if let nextId {
            id = nextId
        } else {
            let sequence =
                try Int64.fetchOne(
                    db, sql: "SELECT seq FROM sqlite_sequence WHERE name = ?",
                    arguments: [soup.tableName]) ?? 0
            guard sequence < .max else { throw SmartStoreError.database("Soup \(soup.name) has no entry ids left") }
            id = sequence + 1
        }
        nextId = id < .max ? id + 1 : nil
        return id
    }

    /// Inserts a new entry and returns it with `_soupEntryId` and `_soupLastModifiedDate`.
    mutating func create(_ entry: JSONValue) throws -> JSONValue {
        var members = try Self.entryObject(entry)
        let id = try allocateId()
        let now = try now()
        members["_soupEntryId"] = .int(id)
        members["_soupLastModifiedDate"] = .int(now)
        let saved = JSONValue.object(members)
        var arguments: [DatabaseValue] = [id.databaseValue, saved.jsonString.databaseValue, now.databaseValue, now.databaseValue]
        arguments.reserveCapacity(4 + columnSpecs.count)
        for spec in columnSpecs { arguments.append(ProjectedValue.databaseValue(saved.value(atPath: spec.path))) }
        let statement = try db.cachedStatement(sql: insertSQL)
        statement.setUncheckedArguments(StatementArguments(databaseValues: arguments))
        try statement.execute()
        try writeFullText(saved, id: id)
        return saved
    }

    /// Replaces entry `id` and returns the saved JSON. `checkingCopy`: a copy of this entry
    /// (its `_soupEntryId` and `_soupLastModifiedDate`) replaces it only if it was not written
    /// since the copy was read.
    ///
    /// - Throws: ``SmartStoreError/entryNotFound(soup:id:)`` when no such entry exists,
    ///   ``SmartStoreError/staleEntry(soup:id:read:current:)`` for a stale copy.
    mutating func update(_ entry: JSONValue, id: Int64, checkingCopy: Bool = false) throws -> JSONValue {
        var members = try Self.entryObject(entry)
        if checkingCopy { try checkCopy(members, id: id) }
        let now = try now()
        members["_soupEntryId"] = .int(id)
        members["_soupLastModifiedDate"] = .int(now)
        let saved = JSONValue.object(members)
        var arguments: [DatabaseValue] = [saved.jsonString.databaseValue, now.databaseValue]
        arguments.reserveCapacity(3 + columnSpecs.count)
        for spec in columnSpecs { arguments.append(ProjectedValue.databaseValue(saved.value(atPath: spec.path))) }
        arguments.append(id.databaseValue)
        if let capture = soup.capture {
            try ShadowSchema.beforeWrite(
                db, soup: soup, capture: capture, ids: [id], setting: ShadowSchema.isSet(saved.value(atPath: capture.flagPath)))
        }
        let statement = try db.cachedStatement(sql: updateSQL)
        statement.setUncheckedArguments(StatementArguments(databaseValues: arguments))
        try statement.execute()
        guard db.changesCount > 0 else { throw SmartStoreError.entryNotFound(soup: soup.name, id: id) }
        try writeFullText(saved, id: id)
        return saved
    }

    /// Refuses a copy of entry `id` read before its last write (see `update`). An entry that
    /// carries no stamp, or another entry's id, is not a copy of it.
    private func checkCopy(_ members: [String: JSONValue], id: Int64) throws {
        guard members["_soupEntryId"]?.int64Value == id, let read = members["_soupLastModifiedDate"], !read.isNull else { return }
        let current = try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT lastModified FROM \(soup.tableName) WHERE id = ?"), arguments: [id])
        guard let current else { throw SmartStoreError.entryNotFound(soup: soup.name, id: id) }
        guard read.int64Value == current else {
            throw SmartStoreError.staleEntry(soup: soup.name, id: id, read: read.int64Value, current: current)
        }
    }

    /// Upsert by `_soupEntryId` (when `externalIdPath` is `_soupEntryId`) or by an indexed path.
    /// A copy of the entry it replaces must be current (see `update`).
    mutating func upsert(_ entry: JSONValue, externalIdPath: String) throws -> JSONValue {
        if externalIdPath == "_soupEntryId" {
            if let id = entry["_soupEntryId"]?.int64Value { return try update(entry, id: id, checkingCopy: true) }
            return try create(entry)
        }
        _ = try Self.entryObject(entry)
        guard let value = entry.value(atPath: externalIdPath), !value.isNull else {
            throw SmartStoreError.emptyExternalId(path: externalIdPath)
        }
        if let id = try lookupEntryId(path: externalIdPath, value: value) {
            return try update(entry, id: id, checkingCopy: true)
        }
        return try create(entry)
    }

    /// The id of the entry whose indexed `path` equals `value`, `nil` if none.
    ///
    /// - Throws: ``SmartStoreError/noIndexForPath(soup:path:)`` for a non-indexed path and
    ///   ``SmartStoreError/duplicateExternalId(soup:path:value:)`` when several entries match.
    func lookupEntryId(path: String, value: JSONValue) throws -> Int64? {
        guard let column = soup.indexSpec(forPath: path)?.columnName else {
            throw SmartStoreError.noIndexForPath(soup: soup.name, path: path)
        }
        let ids = try Int64.fetchAll(
            db.cachedStatement(sql: "SELECT id FROM \(soup.tableName) WHERE \(column) = ? LIMIT 2"),
            arguments: [ProjectedValue.databaseValue(value)])
        guard ids.count <= 1 else {
            let text = value.stringValue ?? value.jsonString
            throw SmartStoreError.duplicateExternalId(soup: soup.name, path: path, value: text)
        }
        return ids.first
    }

    /// Keeps the FTS5 row of the entry in step (FTS5 supports `INSERT OR REPLACE` by rowid).
    private mutating func writeFullText(_ saved: JSONValue, id: Int64) throws {
        guard let sql = fullTextSQL else { return }
        var arguments: [DatabaseValue] = [id.databaseValue]
        arguments += ftsSpecs.map { ProjectedValue.databaseValue(saved.value(atPath: $0.path)) }
        let statement = try db.cachedStatement(sql: sql)
        statement.setUncheckedArguments(StatementArguments(databaseValues: arguments))
        try statement.execute()
    }
}
