public import FastJSON
import GRDB

extension SmartStore {
    /// Keeps, from now on, each entry of `soup` as it was before a write set `flagPath` in it
    /// (true, 1, `"true"` or `"1"`, as any SDK writes a flag), as its `kind` shadow; a write
    /// that clears the flag removes all the entry's shadows.
    ///
    /// Shadows are JSON documents the store keeps beside an entry, under a kind name, in the
    /// same database: written in the same transaction as the entry (by the store's writes, and
    /// ``modify(_:in:shadows:_:)``), so a crash never separates them, and removed with it.
    /// Every write through this store's API counts (``upsert(_:in:externalIdPath:)-9jpjf``,
    /// `update`, `modify`, `setField`); a page ingest writes records as they come and does not
    /// keep a shadow when its `setFields` set the flag. Another `SmartStore` on the same file
    /// that cached the soup before the capture was made learns of it when it opens again.
    /// Mobile Sync keeps each dirty record's `base` this way, its state as last synced, for
    /// three-way merges; only entries whose flag is set carry one. A soup has at most one
    /// capture: this replaces the previous one. It survives ``alterSoup(_:indexSpecs:reIndexData:)``.
    ///
    /// - Throws: ``SmartStoreError/unknownSoup(_:)``, ``SmartStoreError/invalidPath(_:)``,
    ///   ``SmartStoreError/invalidSoupName(_:)`` for a kind that is not a simple name.
    public func captureShadow(_ kind: String, inSoup soupName: String, whenFlagSet flagPath: String) throws {
        try Identifiers.validateSoupName(kind)
        try Identifiers.validatePath(flagPath)
        let wanted = ShadowCapture(kind: kind, flagPath: flagPath)
        let changed = try write { db -> Bool in
            let soup = try requireSoup(db, named: soupName)
            guard try ShadowSchema.capture(db, soupName: soupName) != wanted else { return false }
            try ShadowSchema.createTables(db)
            try db.execute(
                sql: "INSERT OR REPLACE INTO soup_shadow_captures (soupName, kind, flagPath) VALUES (?, ?, ?)",
                arguments: [soupName, kind, flagPath])
            try ShadowSchema.dropCapture(db, tableName: soup.tableName)
            try ShadowSchema.installRemoval(db, soup: soup)
            return true
        }
        // Soups are cached with their capture.
        let cached = try read { db in try soup(db, named: soupName)?.capture }
        if changed || cached != wanted { cache.invalidate() }
    }

    /// The `kind` shadows of these entries, by entry id (entries without one are absent).
    public func shadows(_ kind: String, of entryIds: [Int64], in soupName: String) throws -> [Int64: JSONValue] {
        try read(readingShadows([kind], of: entryIds, in: soupName)).mapValues { $0[kind] ?? .null }
    }

    /// Reads shadows without blocking the caller's thread; see ``shadows(_:of:in:)-(_,_,_)``.
    public func shadows(_ kind: String, of entryIds: [Int64], in soupName: String) async throws -> [Int64: JSONValue] {
        try await read(readingShadows([kind], of: entryIds, in: soupName)).mapValues { $0[kind] ?? .null }
    }

    /// The ids of the entries of `soup` that have a `kind` shadow, ascending.
    public func entryIds(withShadow kind: String, in soupName: String) async throws -> [Int64] {
        try await read { db in
            _ = try self.requireSoup(db, named: soupName)
            guard try ShadowSchema.exists(db) else { return [] }
            return try Int64.fetchAll(
                db, sql: "SELECT entryId FROM soup_shadows WHERE soupName = ? AND kind = ? ORDER BY entryId", arguments: [soupName, kind])
        }
    }

    /// Sets (or, for `nil`, removes) the `kind` shadow of each entry; entries that do not
    /// exist are skipped.
    public func setShadows(_ kind: String, _ documents: [Int64: JSONValue?], in soupName: String) async throws {
        try Identifiers.validateSoupName(kind)
        try await write { db in
            let soup = try self.requireSoup(db, named: soupName)
            let existing = Set(try Self.entries(Array(documents.keys), soup: soup, db: db).map(\.0))
            try Self.writeShadows(db, soup: soup, documents.filter { existing.contains($0.key) }.mapValues { [kind: $0] })
        }
    }

    /// The shadows of `kinds` of these entries, by entry id, then kind.
    func readingShadows(_ kinds: Set<String>, of entryIds: [Int64], in soupName: String)
        -> @Sendable (Database) throws -> [Int64: [String: JSONValue]]
    {
        { db in
            _ = try self.requireSoup(db, named: soupName)
            return try Self.shadows(db, soupName: soupName, kinds: kinds, of: entryIds)
        }
    }

    static func shadows(_ db: Database, soupName: String, kinds: Set<String>, of entryIds: [Int64]) throws -> [Int64: [String: JSONValue]] {
        guard !kinds.isEmpty, !entryIds.isEmpty, try ShadowSchema.exists(db) else { return [:] }
        let statement = try db.cachedStatement(
            sql: """
                SELECT entryId, kind, document FROM soup_shadows WHERE soupName = ? AND entryId IN (SELECT value FROM json_each(?))
                AND kind IN (SELECT value FROM json_each(?))
                """)
        var result: [Int64: [String: JSONValue]] = [:]
        for chunk in entryIds.chunked(by: 500) {
            let kindList = JSONValue.array(kinds.sorted().map(JSONValue.string)).jsonString
            let rows = try Row.fetchCursor(statement, arguments: [soupName, idArray(Array(chunk)), kindList])
            while let row = try rows.next() {
                guard let entryId: Int64 = row["entryId"], let kind: String = row["kind"], let text: String = row["document"] else {
                    continue
                }
                result[entryId, default: [:]][kind] = try parseEntry(Array(text.utf8))
            }
        }
        return result
    }

    /// Writes shadows (`nil` removes one), by entry id, then kind.
    static func writeShadows(_ db: Database, soup: Soup, _ documents: [Int64: [String: JSONValue?]]) throws {
        guard !documents.isEmpty else { return }
        try ShadowSchema.createTables(db)
        try ShadowSchema.installRemoval(db, soup: soup)
        let upsert = try db.cachedStatement(
            sql: "INSERT OR REPLACE INTO soup_shadows (soupName, entryId, kind, document) VALUES (?, ?, ?, ?)")
        let delete = try db.cachedStatement(sql: "DELETE FROM soup_shadows WHERE soupName = ? AND entryId = ? AND kind = ?")
        for (entryId, kinds) in documents {
            for (kind, document) in kinds {
                if let document {
                    try upsert.execute(arguments: [soup.name, entryId, kind, document.jsonString])
                } else {
                    try delete.execute(arguments: [soup.name, entryId, kind])
                }
            }
        }
    }
}
