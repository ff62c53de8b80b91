import GRDB

extension SmartStore {
    /// Creates an entry and returns it with `_soupEntryId` and `_soupLastModifiedDate` set.
    @discardableResult
    public func create(_ entry: JSONValue, in soupName: String) throws -> JSONValue {
        try write(creating([entry], in: soupName))[0]
    }

    /// Creates an entry without blocking the caller's thread; see ``create(_:in:)-7gt70``.
    @discardableResult
    public func create(_ entry: JSONValue, in soupName: String) async throws -> JSONValue {
        try await write(creating([entry], in: soupName))[0]
    }

    /// Creates entries in one transaction (all or none) and returns them as saved.
    @discardableResult
    public func create(_ entries: [JSONValue], in soupName: String) throws -> [JSONValue] {
        try write(creating(entries, in: soupName))
    }

    /// Creates entries without blocking the caller's thread; see ``create(_:in:)-11rwf``.
    @discardableResult
    public func create(_ entries: [JSONValue], in soupName: String) async throws -> [JSONValue] {
        try await write(creating(entries, in: soupName))
    }

    func creating(_ entries: [JSONValue], in soupName: String) -> @Sendable (Database) throws -> [JSONValue] {
        { db in
            var writer = EntryWriter(db: db, soup: try self.requireSoup(db, named: soupName))
            return try entries.map { try writer.create($0) }
        }
    }

    /// Replaces the entry `id` with `entry` and returns it as saved.
    ///
    /// A copy of the entry (it carries the entry's `_soupEntryId` and `_soupLastModifiedDate`, as
    /// every entry the store returns does) replaces it only if nothing wrote the entry since the
    /// copy was read: a stale copy would roll back what the other writer did (a sync's server
    /// id, its flags, another user's change). Change the entry with `modify(_:in:_:)`,
    /// which reads and writes in one transaction, or save the entry this call returns, not the
    /// copy passed to it. An entry without `_soupLastModifiedDate` replaces it as given.
    ///
    /// - Throws: ``SmartStoreError/entryNotFound(soup:id:)`` if there is no such entry,
    ///   ``SmartStoreError/staleEntry(soup:id:read:current:)`` for a stale copy.
    @discardableResult
    public func update(_ entry: JSONValue, id: Int64, in soupName: String) throws -> JSONValue {
        try write(updating(entry, id: id, in: soupName))
    }

    /// Replaces an entry without blocking the caller's thread; see ``update(_:id:in:)``.
    @discardableResult
    public func update(_ entry: JSONValue, id: Int64, in soupName: String) async throws -> JSONValue {
        try await write(updating(entry, id: id, in: soupName))
    }

    func updating(_ entry: JSONValue, id: Int64, in soupName: String) -> @Sendable (Database) throws -> JSONValue {
        { db in
            var writer = EntryWriter(db: db, soup: try self.requireSoup(db, named: soupName))
            return try writer.update(entry, id: id, checkingCopy: true)
        }
    }

    /// Reads the entry `id`, applies `change` to it and saves it, in one transaction: a write
    /// landing between the read and the save (a sync writing the same entry) cannot be lost.
    /// Returns the entry as saved.
    ///
    /// - Throws: ``SmartStoreError/entryNotFound(soup:id:)`` if there is no such entry, or
    ///   what `change` throws (nothing is saved then).
    @discardableResult
    public func modify(_ id: Int64, in soupName: String, _ change: @escaping @Sendable (inout JSONValue) throws -> Void) throws
        -> JSONValue
    {
        try write(modifying(id, in: soupName, change))
    }

    /// Modifies an entry without blocking the caller's thread; see ``modify(_:in:_:)-(_,_,_)``.
    @discardableResult
    public func modify(_ id: Int64, in soupName: String, _ change: @escaping @Sendable (inout JSONValue) throws -> Void) async throws
        -> JSONValue
    {
        try await write(modifying(id, in: soupName, change))
    }

    private func modifying(_ id: Int64, in soupName: String, _ change: @escaping @Sendable (inout JSONValue) throws -> Void)
        -> @Sendable (Database) throws -> JSONValue
    {
        { db in
            let soup = try self.requireSoup(db, named: soupName)
            guard var entry = try Self.entries([id], soup: soup, db: db).first?.1 else {
                throw SmartStoreError.entryNotFound(soup: soupName, id: id)
            }
            try change(&entry)
            var writer = EntryWriter(db: db, soup: soup)
            return try writer.update(entry, id: id)
        }
    }

    /// Upserts one entry. See ``upsert(_:in:externalIdPath:)-9jpjf``.
    @discardableResult
    public func upsert(_ entry: JSONValue, in soupName: String, externalIdPath: String = "_soupEntryId") throws -> JSONValue {
        try write(upserting([entry], in: soupName, externalIdPath: externalIdPath))[0]
    }

    /// Upserts one entry without blocking the caller's thread; see ``upsert(_:in:externalIdPath:)-9jpjf``.
    @discardableResult
    public func upsert(_ entry: JSONValue, in soupName: String, externalIdPath: String = "_soupEntryId") async throws -> JSONValue {
        try await write(upserting([entry], in: soupName, externalIdPath: externalIdPath))[0]
    }

    /// Upserts entries in one transaction: all are saved or, on the first error, none.
    ///
    /// With the default `externalIdPath` (`_soupEntryId`), an entry carrying `_soupEntryId`
    /// updates that entry and one without it is created. With another path, the entry whose
    /// indexed value at that path equals the entry's is updated, else a new one is created. A
    /// stale copy of the entry it updates is refused, as by ``update(_:id:in:)-9gitk``.
    ///
    /// - Throws: ``SmartStoreError/staleEntry(soup:id:read:current:)`` for a stale copy,
    ///   ``SmartStoreError/emptyExternalId(path:)`` when an entry has no value at the path,
    ///   ``SmartStoreError/noIndexForPath(soup:path:)`` when the path is not indexed,
    ///   ``SmartStoreError/duplicateExternalId(soup:path:value:)`` when several entries match.
    @discardableResult
    public func upsert(_ entries: [JSONValue], in soupName: String, externalIdPath: String = "_soupEntryId") throws -> [JSONValue] {
        try write(upserting(entries, in: soupName, externalIdPath: externalIdPath))
    }

    /// Upserts entries without blocking the caller's thread; see ``upsert(_:in:externalIdPath:)-9jpjf``.
    @discardableResult
    public func upsert(_ entries: [JSONValue], in soupName: String, externalIdPath: String = "_soupEntryId") async throws
        -> [JSONValue]
    {
        try await write(upserting(entries, in: soupName, externalIdPath: externalIdPath))
    }

    func upserting(_ entries: [JSONValue], in soupName: String, externalIdPath: String)
        -> @Sendable (Database) throws -> [JSONValue]
    {
        { db in
            var writer = EntryWriter(db: db, soup: try self.requireSoup(db, named: soupName))
            return try entries.map { try writer.upsert($0, externalIdPath: externalIdPath) }
        }
    }

    /// The entries with these ids, in the order of `ids` (missing ids are skipped).
    public func retrieve(_ ids: [Int64], from soupName: String) throws -> [JSONValue] {
        try read(retrieving(ids, from: soupName))
    }

    /// Reads entries without blocking the caller's thread; see ``retrieve(_:from:)``.
    public func retrieve(_ ids: [Int64], from soupName: String) async throws -> [JSONValue] {
        try await read(retrieving(ids, from: soupName))
    }

    func retrieving(_ ids: [Int64], from soupName: String) -> @Sendable (Database) throws -> [JSONValue] {
        { db in
            let soup = try self.requireSoup(db, named: soupName)
            var byId: [Int64: JSONValue] = [:]
            for chunk in ids.chunked(by: 500) {
                for (id, entry) in try Self.entries(Array(chunk), soup: soup, db: db) { byId[id] = entry }
            }
            return ids.compactMap { byId[$0] }
        }
    }

    /// Deletes the entries with these ids (and their full-text rows).
    public func delete(_ ids: [Int64], from soupName: String) throws {
        try write(deleting(ids, from: soupName))
    }

    /// Deletes entries without blocking the caller's thread; see ``delete(_:from:)``.
    public func delete(_ ids: [Int64], from soupName: String) async throws {
        try await write(deleting(ids, from: soupName))
    }

    func deleting(_ ids: [Int64], from soupName: String) -> @Sendable (Database) throws -> Void {
        { db in try Self.delete(ids, soup: try self.requireSoup(db, named: soupName), db: db) }
    }

    static func delete(_ ids: [Int64], soup: Soup, db: Database) throws {
        for chunk in ids.chunked(by: 500) {
            let placeholders = chunk.map { _ in "?" }.joined(separator: ",")
            try db.execute(
                sql: "DELETE FROM \(soup.tableName) WHERE id IN (\(placeholders))",
                arguments: StatementArguments(databaseValues: chunk.map(\.databaseValue)))
            if let fts = soup.ftsTableName {
                try db.execute(
                    sql: "DELETE FROM \(fts) WHERE rowid IN (\(placeholders))",
                    arguments: StatementArguments(databaseValues: chunk.map(\.databaseValue)))
            }
        }
    }

    /// Deletes the first `pageSize` entries the query matches (the SDK's semantics), and
    /// returns how many were deleted. Smart queries must select the entry id as `id`
    /// (e.g. `select {s:_soupEntryId} …`).
    @discardableResult
    public func deleteByQuery(_ spec: QuerySpec, from soupName: String) throws -> Int {
        try write(deleting(spec, from: soupName))
    }

    /// Deletes by query without blocking the caller's thread; see ``deleteByQuery(_:from:)``.
    @discardableResult
    public func deleteByQuery(_ spec: QuerySpec, from soupName: String) async throws -> Int {
        try await write(deleting(spec, from: soupName))
    }

    func deleting(_ spec: QuerySpec, from soupName: String) -> @Sendable (Database) throws -> Int {
        { db in
            let soup = try self.requireSoup(db, named: soupName)
            let sql = try self.translate(db, spec.idsSmartSql)
            let limited = "SELECT * FROM (\(sql)) LIMIT \(spec.pageSize)"
            let ids = try Int64.fetchAll(
                db, sql: limited, arguments: StatementArguments(databaseValues: spec.arguments.map(ProjectedValue.databaseValue)))
            try Self.delete(ids, soup: soup, db: db)
            return ids.count
        }
    }

    /// The id of the entry whose indexed `path` equals `value`, or `nil`.
    ///
    /// - Throws: ``SmartStoreError/noIndexForPath(soup:path:)`` if the path is not indexed,
    ///   ``SmartStoreError/duplicateExternalId(soup:path:value:)`` if several entries match.
    public func lookupSoupEntryId(soup soupName: String, path: String, value: JSONValue) throws -> Int64? {
        try read(lookingUp(soup: soupName, path: path, value: value))
    }

    /// Looks an entry up without blocking the caller's thread; see ``lookupSoupEntryId(soup:path:value:)``.
    public func lookupSoupEntryId(soup soupName: String, path: String, value: JSONValue) async throws -> Int64? {
        try await read(lookingUp(soup: soupName, path: path, value: value))
    }

    private func lookingUp(soup soupName: String, path: String, value: JSONValue) -> @Sendable (Database) throws -> Int64? {
        { db in try EntryWriter(db: db, soup: try self.requireSoup(db, named: soupName)).lookupEntryId(path: path, value: value) }
    }

    static func parseSoupColumn(_ row: Row, at index: Int) throws -> JSONValue {
        try row.withUnsafeData(atIndex: index) { data in
            guard let data else { return .null }
            return try parseEntry(data)
        }
    }

    /// A stored entry's JSON text as a value; ``SmartStoreError/malformedJSON(_:)`` when it is not JSON.
    static func parseEntry(_ text: some Collection<UInt8>) throws -> JSONValue {
        do {
            return try JSONValue(parsing: text)
        } catch {
            throw SmartStoreError.malformedJSON("Stored entry is not valid JSON: \(error)")
        }
    }
}

extension Array {
    func chunked(by size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
