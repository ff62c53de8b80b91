import FastJSON
import GRDB

/// What a soup keeps automatically (``SmartStore/captureShadow(_:inSoup:whenFlagSet:)``).
struct ShadowCapture: Sendable, Equatable {
    /// The shadow kept.
    let kind: String
    /// The flag whose setting keeps it.
    let flagPath: String
}

/// Where entry shadows live: `soup_shadows` (one document per soup, entry and kind) and
/// `soup_shadow_captures` (per soup, the shadow kept automatically and the flag that decides
/// when), both created on first use, and how they stay with their entries.
///
/// The capture runs in the store's own write paths (``EntryWriter``, `setField`, the page
/// ingest), in the entry's transaction, rather than in SQLite triggers: a trigger on the soup's
/// table costs every update a trigger program, and a sync down updates thousands of clean
/// records a second. Deleting an entry removes its shadows through a trigger (deletes are rare).
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

    /// The soup's capture, if it has one.
    static func capture(_ db: Database, soupName: String) throws -> ShadowCapture? {
        guard try db.tableExists("soup_shadow_captures"),
            let row = try Row.fetchOne(
                db, sql: "SELECT kind, flagPath FROM soup_shadow_captures WHERE soupName = ?", arguments: [soupName]),
            let kind: String = row["kind"], let flagPath: String = row["flagPath"]
        else { return nil }
        return ShadowCapture(kind: kind, flagPath: flagPath)
    }

    /// SQL: the flag is set in the soup's row (its index column, or the JSON where the column
    /// is NULL: a soup altered without re-indexing leaves a new column empty until the entry is
    /// written again), as any SDK writes a flag.
    static func isSet(_ soup: Soup, flagPath: String) -> String {
        let json = Soup.jsonExtract(flagPath)
        let value =
            soup.indexSpec(forPath: flagPath)?.columnName.flatMap { $0.hasPrefix("json_extract") ? nil : "coalesce(\($0), \(json))" }
            ?? json
        return "coalesce(\(value) in (1, '1', 'true'), 0)"
    }

    /// Whether a JSON value is a set flag (true, a number other than 0, `"true"`, `"1"`).
    static func isSet(_ value: JSONValue?) -> Bool {
        switch value {
        case .bool(let flag)?: flag
        case .int(let number)?: number != 0
        case .double(let number)?: number != 0
        case .string(let text)?: text == "true" || text == "1"
        default: false
        }
    }

    /// Before entry `id` is written with the flag `setting` (or not): keeps the entry as it is
    /// now when the write sets a flag that is not set yet; removes its shadows when it clears it.
    static func beforeWrite(_ db: Database, soup: Soup, capture: ShadowCapture, ids: [Int64], setting: Bool) throws {
        guard !ids.isEmpty else { return }
        let statement =
            setting
            ? try db.cachedStatement(
                sql: """
                    INSERT OR REPLACE INTO soup_shadows (soupName, entryId, kind, document)
                    SELECT ?, id, ?, soup FROM \(soup.tableName) WHERE id = ? AND NOT \(isSet(soup, flagPath: capture.flagPath))
                    """)
            : try db.cachedStatement(sql: "DELETE FROM soup_shadows WHERE soupName = ? AND entryId = ?")
        for id in ids {
            try statement.execute(arguments: setting ? [soup.name, capture.kind, id] : [soup.name, id])
        }
        // The removal trigger came with the capture (and comes back with an altered table).
    }

    /// After a bulk write that may have cleared the flag of many entries (a page ingest that
    /// overwrites local changes): removes the shadows of every entry whose flag is not set.
    /// Reads the soup's shadows only, which only dirty entries have.
    static func removeSettled(_ db: Database, soup: Soup, capture: ShadowCapture) throws {
        try db.execute(
            sql: """
                DELETE FROM soup_shadows WHERE soupName = ?1 AND entryId IN (
                    SELECT s.entryId FROM soup_shadows s JOIN \(soup.tableName) ON \(soup.tableName).id = s.entryId
                    WHERE s.soupName = ?1 AND NOT \(isSet(soup, flagPath: capture.flagPath)))
                """, arguments: [soup.name])
    }

    /// Triggers an earlier version kept shadows with (none are made now).
    static func dropCapture(_ db: Database, tableName: String) throws {
        try db.execute(sql: "DROP TRIGGER IF EXISTS \(tableName)_shadow_kept; DROP TRIGGER IF EXISTS \(tableName)_shadows_cleared")
    }

    /// Puts back a soup's removal trigger after its table was made again (``SmartStore/alterSoup(_:indexSpecs:reIndexData:)``).
    static func reinstall(_ db: Database, soup: Soup) throws {
        guard try exists(db) else { return }
        let hasShadows = try Int.fetchOne(db, sql: "SELECT 1 FROM soup_shadows WHERE soupName = ? LIMIT 1", arguments: [soup.name]) != nil
        if soup.capture != nil || hasShadows { try installRemoval(db, soup: soup) }
    }

    /// Forgets a dropped soup's shadows and capture.
    static func forget(_ db: Database, soupName: String) throws {
        guard try exists(db) else { return }
        try db.execute(sql: "DELETE FROM soup_shadows WHERE soupName = ?", arguments: [soupName])
        try db.execute(sql: "DELETE FROM soup_shadow_captures WHERE soupName = ?", arguments: [soupName])
    }
}
