import Foundation
import GRDB

/// The crash-resumable "alter soup" long operation, step for step as in the SDK.
///
/// Each step runs in its own transaction and records itself as the operation's `status` in
/// `long_operations_status`; opening the store resumes the operation after the last recorded
/// step. The row is deleted when the operation ends.
struct AlterSoupOperation: Sendable {
    /// The steps in order. Raw values are the SDK's status strings.
    enum Step: String, CaseIterable, Sendable {
        case starting = "STARTING"
        case renameOldSoupTable = "RENAME_OLD_SOUP_TABLE"
        case dropOldIndexes = "DROP_OLD_INDEXES"
        case registerSoupUsingTableName = "REGISTER_SOUP_USING_TABLE_NAME"
        case copyTable = "COPY_TABLE"
        case reIndexSoup = "RE_INDEX_SOUP"
        case dropOldTable = "DROP_OLD_TABLE"

        var next: Step? {
            let all = Step.allCases
            guard let index = all.firstIndex(of: self), index + 1 < all.count else { return nil }
            return all[index + 1]
        }
    }

    static let type = "alterSoup"

    struct Details: Codable, Sendable {
        var soupName: String
        var soupTableName: String
        var oldIndexSpecs: [IndexSpec]
        var newIndexSpecs: [IndexSpec]
        var reIndexData: Bool
    }

    var rowId: Int64
    var details: Details

    private var oldTable: String { details.soupTableName + "_old" }

    /// Records the operation (step STARTING) and returns it.
    static func start(_ db: Database, soup: Soup, newSpecs: [IndexSpec], reIndexData: Bool) throws -> AlterSoupOperation {
        let details = Details(
            soupName: soup.name, soupTableName: soup.tableName, oldIndexSpecs: soup.indexSpecs,
            newIndexSpecs: newSpecs.map { IndexSpec(path: $0.path, type: $0.type) }, reIndexData: reIndexData)
        let json = String(decoding: try JSONEncoder().encode(details), as: UTF8.self)
        let now = SmartStore.now()
        try db.execute(
            sql: "INSERT INTO long_operations_status (type, details, status, created, lastModified) VALUES (?, ?, ?, ?, ?)",
            arguments: [type, json, Step.starting.rawValue, now, now])
        return AlterSoupOperation(rowId: db.lastInsertedRowID, details: details)
    }

    /// The interrupted operations recorded in the store, with their last completed step.
    static func pending(_ db: Database) throws -> [(AlterSoupOperation, Step)] {
        try Row.fetchAll(
            db, sql: "SELECT id, details, status FROM long_operations_status WHERE type = ? ORDER BY id",
            arguments: [type]
        ).compactMap { row in
            // Optional reads: a damaged row is skipped, never a trap.
            guard let detailsText: String = row["details"], let status: String = row["status"], let rowId: Int64 = row["id"],
                let details = try? JSONDecoder().decode(Details.self, from: Data(detailsText.utf8)),
                let step = Step(rawValue: status)
            else { return nil }
            return (AlterSoupOperation(rowId: rowId, details: details), step)
        }
    }

    /// Runs one step and records it, in the caller's transaction.
    func run(_ step: Step, _ db: Database) throws {
        let table = details.soupTableName
        switch step {
        case .starting:
            break
        case .renameOldSoupTable:
            try db.execute(sql: "ALTER TABLE \(table) RENAME TO \(oldTable)")
            if try db.tableExists("\(table)_fts") {
                try db.execute(sql: "ALTER TABLE \(table)_fts RENAME TO \(oldTable)_fts")
            }
        case .dropOldIndexes:
            try StoreSchema.dropIndexes(db, tableName: table, specCount: details.oldIndexSpecs.count)
            try db.execute(sql: "DELETE FROM soup_index_map WHERE soupName = ?", arguments: [details.soupName])
        case .registerSoupUsingTableName:
            try StoreSchema.createSoupTable(db, soupName: details.soupName, tableName: table, specs: details.newIndexSpecs)
        case .copyTable:
            try copyTable(db)
        case .reIndexSoup:
            if details.reIndexData, let soup = try StoreSchema.loadSoup(db, named: details.soupName) {
                let old = Set(details.oldIndexSpecs.map { "\($0.path)--\($0.type.rawValue)" })
                let paths = details.newIndexSpecs.filter { !old.contains("\($0.path)--\($0.type.rawValue)") }.map(\.path)
                try SoupReindexer.reindex(db, soup: soup, paths: paths)
            }
        case .dropOldTable:
            try db.execute(sql: "DROP TABLE IF EXISTS \(oldTable)")
            try db.execute(sql: "DROP TABLE IF EXISTS \(oldTable)_fts")
            // The old table's triggers went with it: the new one gets its shadows' triggers.
            if let soup = try StoreSchema.loadSoup(db, named: details.soupName) { try ShadowSchema.reinstall(db, soup: soup) }
            try db.execute(sql: "DELETE FROM long_operations_status WHERE id = ?", arguments: [rowId])
            return
        }
        try db.execute(
            sql: "UPDATE long_operations_status SET status = ?, lastModified = ? WHERE id = ?",
            arguments: [step.rawValue, SmartStore.now(), rowId])
    }

    /// Copies rows from the renamed table, keeping a column's values when its path keeps
    /// its column type, or when it was json1 (the old expression still reads the JSON).
    private func copyTable(_ db: Database) throws {
        guard let soup = try StoreSchema.loadSoup(db, named: details.soupName) else { return }
        var targets = ["id", "soup", "created", "lastModified"]
        var sources = targets
        for spec in soup.columnSpecs {
            guard let old = details.oldIndexSpecs.first(where: { $0.path == spec.path }), let column = spec.columnName else { continue }
            if old.type == .json1 {
                sources.append(Soup.jsonExtract(spec.path))
            } else if old.type.columnType == spec.type.columnType, let oldColumn = old.columnName {
                sources.append(oldColumn)
            } else {
                continue
            }
            targets.append(column)
        }
        try db.execute(
            sql:
                "INSERT INTO \(soup.tableName) (\(targets.joined(separator: ", "))) SELECT \(sources.joined(separator: ", ")) FROM \(oldTable)"
        )
        // Keep ids from being reused: carry the old AUTOINCREMENT sequence over.
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO sqlite_sequence (name, seq)
                SELECT ?, max(seq) FROM sqlite_sequence WHERE name IN (?, ?)
                """, arguments: [soup.tableName, soup.tableName, oldTable])
        try SoupReindexer.rebuildFullText(db, soup: soup)
    }
}
