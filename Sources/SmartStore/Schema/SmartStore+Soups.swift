import GRDB

extension SmartStore {
    /// Registers a soup with its index specs. Registering an existing soup does nothing.
    ///
    /// - Throws: ``SmartStoreError/invalidSoupName(_:)``, ``SmartStoreError/noIndexSpecs(soup:)``,
    ///   ``SmartStoreError/invalidPath(_:)``, ``SmartStoreError/duplicateIndexPath(soup:path:)``.
    public func registerSoup(_ name: String, indexSpecs: [IndexSpec]) throws {
        try Self.validate(soup: name, specs: indexSpecs)
        try write { db in
            guard try soup(db, named: name) == nil else { return }
            try db.execute(sql: "INSERT INTO soup_attrs (soupName) VALUES (?)", arguments: [name])
            let tableName = "TABLE_\(db.lastInsertedRowID)"
            try StoreSchema.createSoupTable(db, soupName: name, tableName: tableName, specs: indexSpecs)
        }
    }

    static func validate(soup name: String, specs: [IndexSpec]) throws {
        try Identifiers.validateSoupName(name)
        guard !specs.isEmpty else { throw SmartStoreError.noIndexSpecs(soup: name) }
        var seen: Set<String> = []
        for spec in specs {
            try Identifiers.validatePath(spec.path)
            guard seen.insert(spec.path).inserted else { throw SmartStoreError.duplicateIndexPath(soup: name, path: spec.path) }
        }
    }

    /// Whether a soup with this name is registered.
    public func hasSoup(_ name: String) throws -> Bool {
        try read { db in try soup(db, named: name) != nil }
    }

    /// The names of all registered soups, in registration order.
    public func soupNames() throws -> [String] {
        try read { db in try StoreSchema.soupNames(db) }
    }

    /// The index specs of a soup, each with its resolved ``IndexSpec/columnName``.
    public func indexSpecs(ofSoup name: String) throws -> [IndexSpec] {
        try read { db in try requireSoup(db, named: name).indexSpecs }
    }

    /// Whether `path` is indexed in the soup.
    public func hasIndex(forPath path: String, inSoup name: String) throws -> Bool {
        try read { db in try requireSoup(db, named: name).indexSpec(forPath: path) != nil }
    }

    /// Deletes every entry of a soup; the soup stays registered. Entry ids are not reused.
    public func clearSoup(_ name: String) throws {
        try write { db in
            let soup = try requireSoup(db, named: name)
            try db.execute(sql: "DELETE FROM \(soup.tableName)")
            if let fts = soup.ftsTableName { try db.execute(sql: "DELETE FROM \(fts)") }
        }
    }

    /// Drops a soup and all its entries. Dropping an unknown soup does nothing.
    public func dropSoup(_ name: String) throws {
        try write { db in try dropSoup(db, named: name) }
        cache.invalidate()
    }

    /// Drops every soup.
    public func dropAllSoups() throws {
        try write { db in
            for name in try StoreSchema.soupNames(db) { try dropSoup(db, named: name) }
        }
        cache.invalidate()
    }

    private func dropSoup(_ db: Database, named name: String) throws {
        guard let soup = try StoreSchema.loadSoup(db, named: name) else { return }
        try db.execute(sql: "DROP TABLE IF EXISTS \(soup.tableName)")
        try db.execute(sql: "DROP TABLE IF EXISTS \(soup.tableName)_fts")
        try db.execute(sql: "DELETE FROM soup_attrs WHERE soupName = ?", arguments: [name])
        try db.execute(sql: "DELETE FROM soup_index_map WHERE soupName = ?", arguments: [name])
        try ShadowSchema.forget(db, soupName: name)
        cache.invalidate()
    }
}
