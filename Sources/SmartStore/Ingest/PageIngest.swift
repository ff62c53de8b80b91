import GRDB

/// One page ingest inside a write transaction, in SQL, for the pages ``ScannedPageIngest``
/// declines, in one of two ways:
///
/// - ``writeReturning()``, the common case (no dirty entries to skip): a single upsert
///   statement whose `RETURNING` rows give the counts, the max timestamp and the checks, so
///   the page is parsed by SQLite once. A record without id or not an object, a duplicate id
///   or an empty page rolls its savepoint back and returns `nil`.
/// - ``writeAfterSummary(skipDirty:)`` (also when unchanged records are skipped): a summary statement first (counts, checks, max
///   timestamp over every record, skipped ones included), then the upsert.
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
    var skipUnchangedField: String? = nil

    private func plan(skipDirty: Bool, deduplicate: Bool, returning: Bool) -> PageUpsertPlan {
        PageUpsertPlan(
            soup: soup, idColumn: idColumn, idPath: idPath, arrayPath: arrayPath, skipDirty: skipDirty,
            skipUnchangedField: returning ? nil : skipUnchangedField,
            deduplicate: deduplicate, returning: returning, timestampPath: timestampPath,
            setFields: setFields, removeFields: removeFields)
    }

    private func arguments(_ plan: PageUpsertPlan, now: Int64) throws -> StatementArguments {
        let base = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = ?", arguments: [soup.tableName]) ?? 0
        return plan.arguments(text: text, now: now, base: base)
    }

    func writeReturning() throws -> PageIngestResult? {
        let plan = plan(skipDirty: false, deduplicate: false, returning: true)
        var result: PageIngestResult?
        try db.inSavepoint {
            var entryIds: [Int64] = []
            var externalIds: Set<DatabaseValue> = []
            var maxTimestamp = DatabaseValue.null
            var missingTimestamps = 0
            let rows = try runReporting {
                try Row.fetchCursor(db, sql: plan.upsertSQL, arguments: try arguments(plan, now: SmartStore.now()))
            }
            while let row = try runReporting({ try rows.next() }) {
                // Anything unusual (no id, not an object, a duplicate id) is left to the summary path,
                // which reports it precisely or handles it.
                let externalId: DatabaseValue = row[1]
                guard !externalId.isNull, (row[2] as Bool?) == true, externalIds.insert(externalId).inserted else { return .rollback }
                entryIds.append(row[0])
                let timestamp: DatabaseValue = row[3]
                if timestamp.isNull {
                    missingTimestamps += 1
                } else if maxTimestamp.isNull || SQLiteOrder.isGreater(timestamp, than: maxTimestamp) {
                    maxTimestamp = timestamp
                }
            }
            if entryIds.isEmpty { return .rollback } // empty page, or no array at the path
            if let ftsSQL = plan.fullTextByIdsSQL, !entryIds.isEmpty {
                try db.execute(sql: ftsSQL, arguments: [JSONValue.array(entryIds.map(JSONValue.int)).jsonString])
            }
            result = PageIngestResult(
                received: entryIds.count, written: entryIds.count, skipped: 0,
                maxTimestamp: SQLiteOrder.text(maxTimestamp), recordsWithoutTimestamp: missingTimestamps)
            return .commit
        }
        return result
    }

    func writeAfterSummary(skipDirty: Bool) throws -> PageIngestResult {
        let summary = try PageSummary.read(db, text: text, arrayPath: arrayPath, idPath: idPath, timestampPath: timestampPath)
        guard summary.missingIds == 0 else { throw SmartStoreError.emptyExternalId(path: idPath) }
        guard summary.received > 0 else {
            return PageIngestResult(received: 0, written: 0, skipped: 0, maxTimestamp: nil, recordsWithoutTimestamp: 0)
        }
        let plan = plan(skipDirty: skipDirty, deduplicate: summary.hasDuplicateIds, returning: false)
        let now = SmartStore.now()
        try db.execute(sql: plan.upsertSQL, arguments: try arguments(plan, now: now))
        let written = db.changesCount
        if let ftsSQL = plan.fullTextSQL {
            try db.execute(sql: ftsSQL, arguments: [text, now])
        }
        return PageIngestResult(
            received: summary.received, written: written, skipped: summary.received - written,
            maxTimestamp: summary.maxTimestamp, recordsWithoutTimestamp: summary.missingTimestamps)
    }

    /// SQLite reports a malformed page when the statement runs: give it the typed error.
    private func runReporting<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError where error.message?.contains("malformed JSON") == true {
            throw SmartStoreError.malformedJSON("Page is not valid JSON: \(error.message ?? "")")
        }
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
