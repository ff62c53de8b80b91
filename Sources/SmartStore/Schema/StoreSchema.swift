import GRDB

/// The SmartStore meta tables and the SQL that creates soup tables, as the SDK lays them out.
enum StoreSchema {
    static func createMetaTables(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS soup_index_map (soupName TEXT, path TEXT, columnName TEXT, columnType TEXT);
                CREATE INDEX IF NOT EXISTS soup_index_map_0 ON soup_index_map (soupName);
                CREATE TABLE IF NOT EXISTS soup_attrs (id INTEGER PRIMARY KEY AUTOINCREMENT, soupName TEXT);
                CREATE INDEX IF NOT EXISTS soup_attrs_0 ON soup_attrs (soupName);
                CREATE TABLE IF NOT EXISTS long_operations_status (id INTEGER PRIMARY KEY AUTOINCREMENT, type TEXT,
                    details TEXT, status TEXT, created INTEGER, lastModified INTEGER);
                CREATE TABLE IF NOT EXISTS store_clock (stamp INTEGER NOT NULL);
                INSERT INTO store_clock (stamp) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM store_clock);
                """)
    }

    /// Loads a soup from the meta tables; `nil` when it is not registered.
    static func loadSoup(_ db: Database, named name: String) throws -> Soup? {
        guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM soup_attrs WHERE soupName = ?", arguments: [name]) else {
            return nil
        }
        let specs = try Row.fetchAll(
            db, sql: "SELECT path, columnName, columnType FROM soup_index_map WHERE soupName = ? ORDER BY rowid",
            arguments: [name]
        ).map { row throws -> IndexSpec in
            // Optional reads: a NULL in a damaged or foreign store is an error, not a trap.
            guard let path: String = row["path"] else {
                throw SmartStoreError.database("soup_index_map has an index of soup \(name) without a path")
            }
            let typeName: String? = row["columnType"]
            return IndexSpec(path: path, type: typeName.flatMap(SoupIndexType.init(rawValue:)) ?? .string, columnName: row["columnName"])
        }
        return Soup(name: name, tableName: "TABLE_\(id)", indexSpecs: specs, capture: try ShadowSchema.capture(db, soupName: name))
    }

    static func soupNames(_ db: Database) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT soupName FROM soup_attrs ORDER BY id")
    }

    /// Creates the soup table, its indexes and FTS table, and records the index map.
    ///
    /// - Returns: the specs with their column names.
    @discardableResult
    static func createSoupTable(_ db: Database, soupName: String, tableName: String, specs: [IndexSpec]) throws -> [IndexSpec] {
        var resolved: [IndexSpec] = []
        var columns = ["id INTEGER PRIMARY KEY AUTOINCREMENT", "soup TEXT", "created INTEGER", "lastModified INTEGER"]
        for (position, spec) in specs.enumerated() {
            let column = Soup.columnName(table: tableName, position: position, type: spec.type, path: spec.path)
            resolved.append(IndexSpec(path: spec.path, type: spec.type, columnName: column))
            if let columnType = spec.type.columnType { columns.append("\(column) \(columnType)") }
        }
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS \(tableName) (\(columns.joined(separator: ", ")))")
        try db.execute(sql: "CREATE INDEX IF NOT EXISTS \(tableName)_created_idx ON \(tableName) (created)")
        try db.execute(sql: "CREATE INDEX IF NOT EXISTS \(tableName)_lastModified_idx ON \(tableName) (lastModified)")
        for (position, spec) in resolved.enumerated() {
            try db.execute(sql: "CREATE INDEX IF NOT EXISTS \(tableName)_\(position)_idx ON \(tableName) (\(spec.columnName ?? ""))")
        }
        let ftsColumns = resolved.filter { $0.type == .fullText }.compactMap(\.columnName)
        if !ftsColumns.isEmpty {
            try db.execute(sql: "CREATE VIRTUAL TABLE IF NOT EXISTS \(tableName)_fts USING fts5(\(ftsColumns.joined(separator: ", ")))")
        }
        for spec in resolved {
            try db.execute(
                sql: "INSERT INTO soup_index_map (soupName, path, columnName, columnType) VALUES (?, ?, ?, ?)",
                arguments: [soupName, spec.path, spec.columnName, spec.type.rawValue])
        }
        return resolved
    }

    static func dropIndexes(_ db: Database, tableName: String, specCount: Int) throws {
        try db.execute(sql: "DROP INDEX IF EXISTS \(tableName)_created_idx")
        try db.execute(sql: "DROP INDEX IF EXISTS \(tableName)_lastModified_idx")
        for position in 0..<specCount {
            try db.execute(sql: "DROP INDEX IF EXISTS \(tableName)_\(position)_idx")
        }
    }
}
