@_spi(MSyncInternal) import FastJSON
import GRDB

/// The common page ingest done without SQLite's JSON functions, which parse and print each
/// record several times (render from `json_each`, `json_set`, one `json_extract` per index
/// column: about 5 µs a record on SQLite 3.40). The page is validated and cut into records
/// once in Swift, each record's text is stored as it came with the bookkeeping members
/// appended (what `json_set` would print), and the index columns are bound from the values
/// found in it.
///
/// Taken when every record is a compact object (no whitespace outside strings, no escaped
/// member name) with a scalar, unique id that matches at most one entry, no record already
/// holds a member the ingest sets or removes, no set or removed field is a nested path, no
/// path read meets an escaped member name (SQLite versions differ on unescaping them) or a
/// string escaping U+0000 (which `json_extract` cuts short), and timestamps are strings in a
/// text or unindexed column. Otherwise ``write()`` returns `nil` before writing anything and
/// the SQL path runs, with its precise errors and counts.
struct ScannedPageIngest {
    let ingest: PageIngest
    let skipDirty: Bool

    private var db: Database { ingest.db }
    private var soup: Soup { ingest.soup }

    /// A record found in the page, with what its write needs.
    private struct Found {
        var range: Range<Int>
        var idRange: Range<Int>
        var columns: [Column]
        var timestamp: DatabaseValue
    }

    /// Where an index column's value comes from: a set field, a removed one, or read path N.
    private enum ColumnSource {
        case set(DatabaseValue)
        case removed
        case read(Int)
    }

    /// An index column's value: a string without escapes is bound from the page's bytes.
    private enum Column {
        case value(DatabaseValue)
        case text(Range<Int>)
    }

    func write() throws -> PageIngestResult? {
        let setKeys = ingest.setFields.keys.sorted()
        let touched = ["_soupEntryId", "_soupLastModifiedDate"] + setKeys + ingest.removeFields
        guard !touched.contains(where: { $0.contains(".") }) else { return nil }
        // The SQL path's max timestamp is the column's value after its affinity (a `REAL` column
        // turns "5" into 5.0), or the value the ingest sets: left to it.
        if let timestampPath = ingest.timestampPath {
            guard !touched.contains(timestampPath) else { return nil }
            if let type = soup.indexSpec(forPath: timestampPath)?.type, type == .integer || type == .floating { return nil }
        }
        let columnSpecs = soup.columnSpecs.filter { $0.columnName != nil }
        let readPaths = [ingest.idPath] + (ingest.timestampPath.map { [$0] } ?? []) + columnSpecs.map(\.path)
        let readComponents = readPaths.map { $0.split(separator: ".").map(String.init) }
        let names = Array(Set(readComponents.compactMap(\.first))) + touched
        // Each path as the position of its first name among `names`, then the nested names.
        let readPlans = readComponents.map { components in (names.firstIndex(of: components.first ?? ""), components.dropFirst()) }
        // Where each index column's value comes from, the same for every record.
        let sources = columnSpecs.enumerated().map { offset, spec -> ColumnSource in
            if let value = ingest.setFields[spec.path] { return .set(ProjectedValue.databaseValue(value)) }
            return ingest.removeFields.contains(spec.path) ? .removed : .read(readPaths.count - columnSpecs.count + offset)
        }
        let recordsPath = ingest.arrayPath == "$" ? [] : ingest.arrayPath.dropFirst(2).split(separator: ".").map(String.init)

        return try ingest.text.utf8.withContiguousStorageIfAvailable { bytes -> PageIngestResult? in
            guard let records = JSONRecordScanner.records(in: bytes, at: recordsPath, names: names), !records.isEmpty else { return nil }
            let touchedStart = names.count - touched.count
            var found: [Found] = []
            found.reserveCapacity(records.count)
            var ids: Set<DatabaseValue> = []
            for record in records {
                guard record.isCompactObject, !record.repeatsName, record.values[touchedStart...].allSatisfy({ $0 == nil }) else {
                    return nil
                }
                /// The value at read path `path`: `nil` to decline the page (a name the lookup
                /// cannot decide, or a string escaping NUL, which SQLite's `json_extract` cuts
                /// short), an empty range when absent.
                func range(_ path: Int) -> Range<Int>? {
                    let (position, nested) = readPlans[path]
                    guard let position, var range = record.values[position] else { return 0..<0 }
                    for name in nested {
                        switch JSONRecordScanner.member(name, in: range, of: bytes) {
                        case .found(let member): range = member
                        case .absent: return 0..<0
                        case .undecidable: return nil
                        }
                    }
                    return Self.escapesNUL(UnsafeBufferPointer(rebasing: bytes[range])) ? nil : range
                }
                guard let idRange = range(0), !idRange.isEmpty, bytes[idRange.lowerBound] != UInt8(ascii: "{"),
                    bytes[idRange.lowerBound] != UInt8(ascii: "[")
                else { return nil }
                let id = Self.extracted(UnsafeBufferPointer(rebasing: bytes[idRange]))
                guard !id.isNull, ids.insert(id).inserted else { return nil }
                var columns: [Column] = []
                columns.reserveCapacity(sources.count)
                for source in sources {
                    switch source {
                    case .set(let value): columns.append(.value(value))
                    case .removed: columns.append(.value(.null))
                    case .read(let path):
                        guard let value = range(path) else { return nil }
                        if value.isEmpty {
                            columns.append(.value(.null))
                        } else if bytes[value.lowerBound] == UInt8(ascii: "\""), !bytes[value].contains(UInt8(ascii: "\\")) {
                            columns.append(.text(value.dropFirst().dropLast()))
                        } else {
                            columns.append(.value(Self.extracted(UnsafeBufferPointer(rebasing: bytes[value]))))
                        }
                    }
                }
                var timestamp = DatabaseValue.null
                if ingest.timestampPath != nil {
                    // Strings only: SQLite prints other values its own way (reals, `1.0e+20`).
                    guard let value = range(1) else { return nil }
                    if !value.isEmpty {
                        timestamp = Self.extracted(UnsafeBufferPointer(rebasing: bytes[value]))
                        guard timestamp.isNull || bytes[value.lowerBound] == UInt8(ascii: "\"") else { return nil }
                    }
                }
                found.append(Found(range: record.range, idRange: idRange, columns: columns, timestamp: timestamp))
            }
            return try write(found, bytes: bytes, columns: columnSpecs.compactMap(\.columnName), setKeys: setKeys)
        } ?? nil
    }

    private static let nulEscape = Array(#"\u0000"#.utf8)

    /// Whether a JSON string's text escapes U+0000 (or might: `\\u0000` counts too).
    static func escapesNUL(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let escape = nulEscape
        guard bytes.first == UInt8(ascii: "\""), bytes.count >= escape.count + 2 else { return false }
        return (1...(bytes.count - escape.count)).contains { start in
            bytes[start] == escape[0] && escape.indices.allSatisfy { bytes[start + $0] == escape[$0] }
        }
    }

    /// Writes the records found; nothing has been written before this point. `nil` (nothing
    /// written) when a record matches several entries (the SQL path counts those its own way)
    /// or new entry ids would pass the end of the range.
    private func write(_ found: [Found], bytes: UnsafeBufferPointer<UInt8>, columns: [String], setKeys: [String]) throws
        -> PageIngestResult?
    {
        guard let existing = try existingEntries(of: found, in: bytes) else { return nil }
        let table = soup.tableName
        let insert = try db.cachedStatement(
            sql: "INSERT INTO \(table) (id, soup, created, lastModified\(columns.map { ", " + $0 }.joined())) VALUES (?, ?, ?, ?"
                + String(repeating: ", ?", count: columns.count) + ")")
        let update = try db.cachedStatement(
            sql: "UPDATE \(table) SET soup = ?, lastModified = ?\(columns.map { ", \($0) = ?" }.joined()) WHERE id = ?")
        let now = SmartStore.now()
        let base = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = ?", arguments: [table]) ?? 0
        // New ids are base + position + 1: a store whose sequence is near the end of the range
        // (the file is outside data) is left to the SQL path and SQLite's own error.
        guard base >= 0, base <= Int64.max - Int64(found.count) else { return nil }
        // What follows the entry id in every document: the members json_set would append, in its order.
        var suffix = Array(",\"_soupLastModifiedDate\":\(now)".utf8)
        for key in setKeys {
            suffix += Array(",\(JSONValue.string(key).jsonString):".utf8) + (ingest.setFields[key] ?? .null).jsonBytes
        }
        suffix.append(UInt8(ascii: "}"))
        let entryIdMember = Array(",\"_soupEntryId\":".utf8)
        var document: [UInt8] = []
        func bind(_ column: Column, to bindings: RawBindings, at index: Int32) {
            switch column {
            case .value(let value): bindings.bind(value, at: index)
            case .text(let range): bindings.bindText(UnsafeBufferPointer(rebasing: bytes[range]), at: index)
            }
        }
        /// Binds the record's text with the entry id and the suffix appended.
        func bindDocument(_ range: Range<Int>, entryId: Int64, to bindings: RawBindings, at index: Int32) {
            document.removeAll(keepingCapacity: true)
            document.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[range.lowerBound..<range.upperBound - 1]))
            // `{}` has no member before the ones appended: no comma.
            document.append(contentsOf: range.count > 2 ? entryIdMember[...] : entryIdMember.dropFirst())
            document.append(contentsOf: String(entryId).utf8)
            document.append(contentsOf: suffix)
            document.withUnsafeBufferPointer { bindings.bindText($0, at: index) }
        }
        let inserting = RawBindings.prepare(insert)
        let updating = RawBindings.prepare(update)
        inserting.bind(now, at: 3)
        inserting.bind(now, at: 4)
        updating.bind(now, at: 2)

        var written: [Int64] = []
        written.reserveCapacity(found.count)
        var skipped = 0
        var maxTimestamp = DatabaseValue.null
        var missingTimestamps = 0
        for (position, record) in found.enumerated() {
            if record.timestamp.isNull {
                missingTimestamps += 1
            } else if maxTimestamp.isNull || SQLiteOrder.isGreater(record.timestamp, than: maxTimestamp) {
                maxTimestamp = record.timestamp
            }
            guard let match = existing[position] else {
                let entryId = base + Int64(position) + 1
                inserting.reset()
                inserting.bind(entryId, at: 1)
                bindDocument(record.range, entryId: entryId, to: inserting, at: 2)
                for (offset, column) in record.columns.enumerated() { bind(column, to: inserting, at: Int32(offset) + 5) }
                try insert.execute()
                written.append(entryId)
                continue
            }
            if skipDirty, match.dirty {
                skipped += 1
                continue
            }
            updating.reset()
            bindDocument(record.range, entryId: match.id, to: updating, at: 1)
            for (offset, column) in record.columns.enumerated() { bind(column, to: updating, at: Int32(offset) + 3) }
            updating.bind(match.id, at: Int32(record.columns.count) + 3)
            try update.execute()
            written.append(match.id)
        }
        if let ftsSQL = PageUpsertPlan.fullTextByIdsSQL(soup), !written.isEmpty {
            try db.execute(sql: ftsSQL, arguments: [JSONValue.array(written.map(JSONValue.int)).jsonString])
        }
        return PageIngestResult(
            received: found.count, written: written.count, skipped: skipped, maxTimestamp: SQLiteOrder.text(maxTimestamp),
            recordsWithoutTimestamp: missingTimestamps)
    }

    /// The entry already holding each record's id, by the record's position, matched as the
    /// SQL path matches them (the id column's affinity applies to the record's value); `nil`
    /// when an id is held by two entries.
    private func existingEntries(of found: [Found], in bytes: UnsafeBufferPointer<UInt8>) throws -> [Int: (id: Int64, dirty: Bool)]? {
        var array: [UInt8] = [UInt8(ascii: "[")]
        for (position, record) in found.enumerated() {
            if position > 0 { array.append(UInt8(ascii: ",")) }
            array.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[record.idRange]))
        }
        array.append(UInt8(ascii: "]"))
        let idExpression = PageUpsertPlan.existingIdExpression(idColumn: ingest.idColumn, idPath: ingest.idPath)
        let dirty = skipDirty ? PageUpsertPlan.existingIsDirty : "0"
        let rows = try Row.fetchCursor(
            db, sql: "SELECT j.key, e.id, \(dirty) FROM json_each(?) AS j JOIN \(soup.tableName) AS e ON \(idExpression) = j.value",
            arguments: [String(decoding: array, as: UTF8.self)])
        var existing: [Int: (id: Int64, dirty: Bool)] = [:]
        while let row = try rows.next() {
            guard existing.updateValue((row[1], row[2]), forKey: row[0]) == nil else { return nil }
        }
        return existing
    }

    /// What `json_extract` gives for the validated JSON value `bytes`: text for strings (and
    /// the compact text of objects and arrays), integers for integers and booleans, reals.
    static func extracted(_ bytes: UnsafeBufferPointer<UInt8>) -> DatabaseValue {
        switch bytes.first {
        case UInt8(ascii: "{"), UInt8(ascii: "["): return String(decoding: bytes, as: UTF8.self).databaseValue
        case UInt8(ascii: "\"") where !bytes.contains(UInt8(ascii: "\\")):
            return String(decoding: UnsafeBufferPointer(rebasing: bytes.dropFirst().dropLast()), as: UTF8.self).databaseValue
        default: return ProjectedValue.databaseValue((try? JSONValue(parsing: bytes)) ?? .null)
        }
    }
}
