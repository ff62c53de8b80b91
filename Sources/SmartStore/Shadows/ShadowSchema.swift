import GRDB

/// Where entry shadows live: `soup_shadows` (one document per soup, entry and kind) and
/// `soup_shadow_captures` (per soup, the shadow kept automatically and the flag that decides
/// when), both created on first use, and the triggers that keep shadows with their entries.
enum ShadowSchema {
    static func createTables(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS soup_shadows (soupName TEXT NOT NULL, entryId INTEGER NOT NULL, kind TEXT NOT NULL,
                    document TEXT NOT NULL, PRIMARY KEY (soupName, entryId, kind)) WITHOUT ROWID;
                CREATE TABLE IF NOT EXISTS soup_shadow_captures (soupName TEXT PRIMARY KEY NOT NULL, kind TEXT NOT NULL,
                    flagPath TEXT NOT NULL);
                """)
    }

    static func exists(_ db: Database) throws -> Bool {
        try db.tableExists("soup_shadows")
    }

    /// A soup name as an SQL string literal (names from stores other tools made are not
    /// validated: quotes are doubled).
    static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// Removes a soup's entry shadows with its entries (every soup that has shadows gets it).
    static func installRemoval(_ db: Database, soup: Soup) throws {
        try db.execute(
            sql: """
                CREATE TRIGGER IF NOT EXISTS \(soup.tableName)_shadows_removed AFTER DELETE ON \(soup.tableName) FOR EACH ROW
                BEGIN DELETE FROM soup_shadows WHERE soupName = \(literal(soup.name)) AND entryId = OLD.id; END
                """)
    }

    /// The triggers of a capture: a write that sets `flagPath` where it was not set keeps the
    /// entry as it was as its `kind` shadow; a write that clears it removes the entry's shadows.
    /// The kind and path are validated identifiers (no quote can appear in them); the soup name
    /// is quoted.
    static func installCapture(_ db: Database, soup: Soup, kind: String, flagPath: String) throws {
        try installRemoval(db, soup: soup)
        let table = soup.tableName
        // The flag's index column when it has one (cheap: no JSON parsed on the sync down's hot
        // path), else the JSON; the JSON too where the column is NULL (a soup altered without
        // re-indexing leaves a new column empty until the entry is written again).
        func isSet(_ row: String) -> String {
            let json = Soup.jsonExtract(flagPath, column: "\(row).soup")
            let value =
                soup.indexSpec(forPath: flagPath)?.columnName.flatMap {
                    $0.hasPrefix("json_extract") ? nil : "coalesce(\(row).\($0), \(json))"
                }
                ?? json
            return "coalesce(\(value) in (1, '1', 'true'), 0)"
        }
        try dropCapture(db, tableName: table)
        try db.execute(
            sql: """
                CREATE TRIGGER \(table)_shadow_kept AFTER UPDATE ON \(table) FOR EACH ROW
                WHEN \(isSet("NEW")) AND NOT \(isSet("OLD"))
                BEGIN INSERT OR REPLACE INTO soup_shadows (soupName, entryId, kind, document) VALUES (\(literal(soup.name)), OLD.id, '\(kind)', OLD.soup); END;
                CREATE TRIGGER \(table)_shadows_cleared AFTER UPDATE ON \(table) FOR EACH ROW
                WHEN \(isSet("OLD")) AND NOT \(isSet("NEW"))
                BEGIN DELETE FROM soup_shadows WHERE soupName = \(literal(soup.name)) AND entryId = OLD.id; END;
                """)
    }

    static func dropCapture(_ db: Database, tableName: String) throws {
        try db.execute(sql: "DROP TRIGGER IF EXISTS \(tableName)_shadow_kept; DROP TRIGGER IF EXISTS \(tableName)_shadows_cleared")
    }

    /// Puts back a soup's triggers after its table was made again (``SmartStore/alterSoup(_:indexSpecs:reIndexData:)``).
    static func reinstall(_ db: Database, soup: Soup) throws {
        guard try exists(db) else { return }
        if let row = try Row.fetchOne(
            db, sql: "SELECT kind, flagPath FROM soup_shadow_captures WHERE soupName = ?", arguments: [soup.name]),
            let kind: String = row["kind"], let flagPath: String = row["flagPath"]
        {
            try installCapture(db, soup: soup, kind: kind, flagPath: flagPath)
        } else if try Int.fetchOne(db, sql: "SELECT 1 FROM soup_shadows WHERE soupName = ? LIMIT 1", arguments: [soup.name]) != nil {
            try installRemoval(db, soup: soup)
        }
    }

    /// Forgets a dropped soup's shadows and capture.
    static func forget(_ db: Database, soupName: String) throws {
        guard try exists(db) else { return }
        try db.execute(sql: "DELETE FROM soup_shadows WHERE soupName = ?", arguments: [soupName])
        try db.execute(sql: "DELETE FROM soup_shadow_captures WHERE soupName = ?", arguments: [soupName])
    }
}
