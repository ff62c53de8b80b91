import GRDB

/// Re-projects index paths of existing entries into their columns (and the FTS table).
///
/// Used by ``SmartStore/reIndexSoup(_:paths:)`` and by the alter-soup long operation.
/// Entries are read in id order in chunks so memory does not grow with the soup.
enum SoupReindexer {
    static let chunkSize = 1000

    static func reindex(_ db: Database, soup: Soup, paths: [String]) throws {
        let specs = paths.compactMap { soup.indexSpec(forPath: $0) }.filter { $0.type.hasColumn }
        guard !specs.isEmpty else { return }
        let columns = specs.compactMap(\.columnName)
        let update = try db.makeStatement(
            sql: "UPDATE \(soup.tableName) SET " + columns.map { "\($0) = ?" }.joined(separator: ", ") + " WHERE id = ?")
        var lastId: Int64 = Int64.min
        while true {
            let rows = try Row.fetchAll(
                db, sql: "SELECT id, soup FROM \(soup.tableName) WHERE id > ? ORDER BY id LIMIT \(chunkSize)", arguments: [lastId])
            guard !rows.isEmpty else { break }
            for row in rows {
                let id: Int64 = row[0]
                lastId = id
                let entry = try SmartStore.parseSoupColumn(row, at: 1)
                var arguments = specs.map { ProjectedValue.databaseValue(entry.value(atPath: $0.path)) }
                arguments.append(id.databaseValue)
                update.setUncheckedArguments(StatementArguments(databaseValues: arguments))
                try update.execute()
            }
        }
        try rebuildFullText(db, soup: soup)
    }

    /// Rewrites the FTS table from the soup table's full-text columns.
    static func rebuildFullText(_ db: Database, soup: Soup) throws {
        guard let fts = soup.ftsTableName else { return }
        let columns = soup.fullTextSpecs.compactMap(\.columnName).joined(separator: ", ")
        try db.execute(sql: "DELETE FROM \(fts)")
        try db.execute(sql: "INSERT INTO \(fts) (rowid, \(columns)) SELECT id, \(columns) FROM \(soup.tableName)")
    }
}
