import GRDB

/// One page ingest inside a write transaction: the one pipeline behind
/// `SmartStore.ingestPage`. It makes one decision: the scan in Swift
/// (``ScannedPageIngest``) writes the page, unless it declines it (``PageIngestDecline``), and
/// then SQL does (``writeInSQL()``), with the same result.
struct PageIngest {
    let db: Database
    let soup: Soup
    let idColumn: String
    let text: String
    let arrayPath: String
    let idPath: String
    let timestampPath: String?
    let setFields: [String: JSONValue]
    let removeFields: [String]
    var skipDirty = false
    var skipUnchangedField: String? = nil
    /// Skip records older (by `timestampPath`) than the entry they would update.
    var keepNewer = false

    /// Writes the page; entries it made clean (it overwrote their local changes) lose their shadows.
    func write() throws -> PageIngestResult {
        let result: PageIngestResult
        do {
            let scanned = try ScannedPageIngest(self)
            result = try scanned.write()
        } catch is PageIngestDecline {
            result = try writeInSQL()
        }
        if let capture = soup.capture, !skipDirty { try ShadowSchema.removeSettled(db, soup: soup, capture: capture) }
        return result
    }

    /// The SQL path: a summary statement first (counts, checks, the max timestamp over every
    /// record, skipped ones included; precise errors for a malformed page), then one
    /// `INSERT … SELECT … FROM json_each(…)` upsert and the full-text rows.
    func writeInSQL() throws -> PageIngestResult {
        let summary = try PageSummary.read(db, text: text, arrayPath: arrayPath, idPath: idPath, timestampPath: timestampPath)
        guard summary.missingIds == 0 else { throw SmartStoreError.emptyExternalId(path: idPath) }
        guard summary.received > 0 else {
            return PageIngestResult(received: 0, written: 0, skipped: 0, maxTimestamp: nil, recordsWithoutTimestamp: 0)
        }
        let plan = PageUpsertPlan(
            soup: soup, idColumn: idColumn, idPath: idPath, arrayPath: arrayPath, skipDirty: skipDirty,
            skipUnchangedField: skipUnchangedField, keepNewer: keepNewer, deduplicate: summary.hasDuplicateIds,
            timestampPath: timestampPath,
            setFields: setFields, removeFields: removeFields)
        let now = try SmartStore.stamp(db)
        try db.execute(sql: plan.upsertSQL, arguments: plan.arguments(text: text, now: now, base: try sequenceBase()))
        let written = db.changesCount
        if let ftsSQL = plan.fullTextSQL {
            try db.execute(sql: ftsSQL, arguments: [text, now])
        }
        return PageIngestResult(
            received: summary.received, written: written, skipped: summary.received - written,
            maxTimestamp: summary.maxTimestamp, recordsWithoutTimestamp: summary.missingTimestamps)
    }

    /// The soup's autoincrement sequence: new entries take ids after it.
    func sequenceBase() throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = ?", arguments: [soup.tableName]) ?? 0
    }
}

/// SQLite's ordering of values, for `max()` computed outside SQL: NULL < numbers < text < blobs.
enum SQLiteOrder {
    static func isGreater(_ value: DatabaseValue, than other: DatabaseValue) -> Bool {
        switch (value.storage, other.storage) {
        case (.int64(let a), .int64(let b)): a > b
        case (.int64(let a), .double(let b)): Double(a) > b
        case (.double(let a), .int64(let b)): a > Double(b)
        case (.double(let a), .double(let b)): a > b
        case (.string(let a), .string(let b)): b.utf8.lexicographicallyPrecedes(a.utf8) // BINARY collation: bytes
        case (.string, .int64), (.string, .double): true
        case (.int64, .string), (.double, .string): false
        default: false
        }
    }

    static func text(_ value: DatabaseValue) -> String? {
        switch value.storage {
        case .null: nil
        case .int64(let int): String(int)
        case .double(let double): String(double)
        case .string(let string): string
        case .blob(let data): data.base64EncodedString()
        }
    }
}
