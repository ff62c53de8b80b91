import GRDB

extension SmartStore {
    /// Upserts a page of records, given as raw JSON bytes: the sync-down hot path.
    ///
    /// The page (e.g. a REST query response `{"totalSize":…,"records":[…]}`) is validated and
    /// cut into records once; each record is matched to an entry by the indexed `idPath`,
    /// stored as it came with `_soupEntryId`, `_soupLastModifiedDate` and `setFields` appended
    /// (what SQLite's `json_set` prints), and its index columns are bound from the values found
    /// in it. Records are never decoded into `JSONValue`s. A page this way declines (whitespace
    /// inside records, escaped member names, duplicate ids, a record that already holds a
    /// field the ingest sets, a resync's `skipUnchangedField`, …: the list is
    /// `PageIngestDecline`) is written in SQL instead, with the same result: a summary
    /// statement (counts, checks, the maximum timestamp), then one
    /// `INSERT … SELECT … FROM json_each(…)` upsert.
    ///
    /// Index paths are projected as `json_extract` reads them, so a path through an array
    /// (which `JSONValue/value(atPath:)` flattens) is stored as `NULL` on this path.
    ///
    /// - Parameters:
    ///   - page: UTF-8 JSON text of the page.
    ///   - soupName: the soup written.
    ///   - recordsPath: where the records array is in the page (`records`; empty for a top-level array).
    ///   - idPath: the record id path; must be indexed (a record without it is an error).
    ///   - timestampPath: path whose maximum is reported (e.g. `LastModifiedDate`).
    ///   - skipDirty: leave entries whose `__local__` is true untouched (LEAVE_IF_CHANGED).
    ///   - skipUnchangedField: leave untouched the entries that hold the record's value at
    ///     `timestampPath` and whose field of this name (a key of `setFields`) already holds the
    ///     value set, or which are dirty: a record read again, unchanged since it was written
    ///     (a resync's overlap), never overwrites local edits.
    ///   - keepNewer: leave untouched the entries whose value at `timestampPath` is later than
    ///     the record's (compared as SQLite compares them: ISO 8601 text in one format, as
    ///     Salesforce writes dates): a page read before a newer version was stored (by a live
    ///     event, another sync) does not put the older one back.
    ///   - setFields: top-level fields written into every record (bookkeeping such as `__local__: false`).
    ///   - removeFields: top-level fields removed from every record (e.g. `__last_error__`).
    /// - Throws: ``SmartStoreError/malformedJSON(_:)`` for invalid JSON or a missing records
    ///   array, ``SmartStoreError/emptyExternalId(path:)`` when a record has no id,
    ///   ``SmartStoreError/noIndexForPath(soup:path:)`` when `idPath` is not indexed. Nothing is
    ///   written when an error is thrown.
    @discardableResult
    public func ingestPage(
        _ page: some Collection<UInt8> & Sendable, into soupName: String, recordsPath: String = "records", idPath: String = "Id",
        timestampPath: String? = "LastModifiedDate", skipDirty: Bool = false, skipUnchangedField: String? = nil,
        keepNewer: Bool = false, setFields: [String: JSONValue] = [:], removeFields: [String] = []
    ) throws -> PageIngestResult {
        try write(
            try ingesting(
                page, into: soupName, recordsPath: recordsPath, idPath: idPath, timestampPath: timestampPath, skipDirty: skipDirty,
                skipUnchangedField: skipUnchangedField, keepNewer: keepNewer, setFields: setFields, removeFields: removeFields))
    }

    /// Ingests a page without blocking the caller's thread; see
    /// ``ingestPage(_:into:recordsPath:idPath:timestampPath:skipDirty:skipUnchangedField:keepNewer:setFields:removeFields:)``.
    @discardableResult
    public func ingestPage(
        _ page: some Collection<UInt8> & Sendable, into soupName: String, recordsPath: String = "records", idPath: String = "Id",
        timestampPath: String? = "LastModifiedDate", skipDirty: Bool = false, skipUnchangedField: String? = nil,
        keepNewer: Bool = false, setFields: [String: JSONValue] = [:], removeFields: [String] = []
    ) async throws -> PageIngestResult {
        try await write(
            try ingesting(
                page, into: soupName, recordsPath: recordsPath, idPath: idPath, timestampPath: timestampPath, skipDirty: skipDirty,
                skipUnchangedField: skipUnchangedField, keepNewer: keepNewer, setFields: setFields, removeFields: removeFields))
    }

    /// Validates the arguments and returns the transaction's work.
    private func ingesting(
        _ page: some Collection<UInt8>, into soupName: String, recordsPath: String, idPath: String, timestampPath: String?,
        skipDirty: Bool, skipUnchangedField: String?, keepNewer: Bool, setFields: [String: JSONValue], removeFields: [String]
    ) throws -> @Sendable (Database) throws -> PageIngestResult {
        if keepNewer, timestampPath == nil { throw SmartStoreError.invalidPath("keepNewer needs a timestampPath") }
        if let field = skipUnchangedField, setFields[field] == nil || timestampPath == nil {
            throw SmartStoreError.invalidPath("skipUnchangedField \(field) needs a timestampPath and a value in setFields")
        }
        for path in [idPath] + (timestampPath.map { [$0] } ?? []) + Array(setFields.keys) + removeFields {
            try Identifiers.validatePath(path)
        }
        if !recordsPath.isEmpty { try Identifiers.validatePath(recordsPath) }
        let arrayPath = recordsPath.isEmpty ? "$" : "$." + recordsPath
        let text = String(decoding: page, as: UTF8.self)
        return { db in
            let soup = try self.requireSoup(db, named: soupName)
            guard let idColumn = soup.indexSpec(forPath: idPath)?.columnName else {
                throw SmartStoreError.noIndexForPath(soup: soupName, path: idPath)
            }
            let ingest = PageIngest(
                db: db, soup: soup, idColumn: idColumn, text: text, arrayPath: arrayPath, idPath: idPath,
                timestampPath: timestampPath, setFields: setFields, removeFields: removeFields, skipDirty: skipDirty,
                skipUnchangedField: skipUnchangedField, keepNewer: keepNewer)
            return try ingest.write()
        }
    }
}
