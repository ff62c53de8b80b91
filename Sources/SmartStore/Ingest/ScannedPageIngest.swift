@_spi(MSyncInternal) import FastJSON
import GRDB

/// The common page ingest done without SQLite's JSON functions, which parse and print each
/// record several times (render from `json_each`, `json_set`, one `json_extract` per index
/// column: about 5 µs a record on SQLite 3.40). The page is validated and cut into records
/// once in Swift, each record's text is stored as it came with the bookkeeping members
/// appended (what `json_set` would print), and the index columns are bound from the values
/// found in it.
///
/// Making one scans the page and matches its records to the entries they update, writing
/// nothing; a page it cannot write exactly as the SQL path would is declined with its reason
/// (``PageIngestDecline``, the one list of them), and ``PageIngest`` has SQL write it.
struct ScannedPageIngest {
    let ingest: PageIngest
    let layout: Layout
    let found: [Found]
    /// The entry already holding each record's id, whether it is dirty and, for `keepNewer`,
    /// its timestamp, by position.
    let existing: [Int: Existing]
    typealias Existing = (id: Int64, dirty: Bool, timestamp: DatabaseValue)
    /// The soup's sequence: a new record's entry id is `base + position + 1`.
    let base: Int64

    /// A record found in the page, with what its write needs.
    struct Found {
        var range: Range<Int>
        var idRange: Range<Int>
        var columns: [Column]
        var timestamp: DatabaseValue
    }

    /// Where an index column's value comes from: a set field, a removed one, or read path N.
    enum ColumnSource {
        case set(DatabaseValue)
        case removed
        case read(Int)
    }

    /// An index column's value: a string without escapes is bound from the page's bytes.
    enum Column {
        case value(DatabaseValue)
        case text(Range<Int>)
    }

    /// Scans the page and finds the entries its records update.
    /// - Throws: a ``PageIngestDecline`` when SQL must write the page; a database error.
    init(_ ingest: PageIngest) throws {
        guard ingest.skipUnchangedField == nil else { throw PageIngestDecline.skipsUnchangedRecords }
        let layout = try Layout(ingest)
        let scanned = try ingest.text.utf8.withContiguousStorageIfAvailable { bytes in
            let found = try Self.scan(bytes, ingest: ingest, layout: layout)
            return (found, try Self.existingEntries(of: found, in: bytes, ingest: ingest))
        }
        guard let (found, existing) = scanned else { throw PageIngestDecline.noContiguousText }
        let base = try ingest.sequenceBase()
        // New ids are base + position + 1: a store whose sequence is near the end of the range
        // (the file is outside data) is left to the SQL path and SQLite's own error.
        guard base >= 0, base <= Int64.max - Int64(found.count) else { throw PageIngestDecline.entryIdsExhausted }
        (self.ingest, self.layout, self.found, self.existing, self.base) = (ingest, layout, found, existing, base)
    }

    /// What the scan reads and writes, the same for every record of the page.
    struct Layout {
        let setKeys: [String]
        /// The member names looked up in each record: the read paths' first names, then the
        /// members the ingest sets or removes (from `touchedStart`).
        let names: [String]
        let touchedStart: Int
        /// Each read path (id, timestamp, index columns) as the position of its first name in
        /// `names`, then its nested names.
        let readPlans: [(position: Int?, nested: ArraySlice<String>)]
        let sources: [ColumnSource]
        /// The index columns, in `sources` order.
        let columns: [String]
        let recordsPath: [String]

        init(_ ingest: PageIngest) throws {
            setKeys = ingest.setFields.keys.sorted()
            let touched = ["_soupEntryId", "_soupLastModifiedDate"] + setKeys + ingest.removeFields
            guard !touched.contains(where: { $0.contains(".") }) else { throw PageIngestDecline.nestedBookkeepingField }
            // A timestamp the ingest sets, or one in a numeric column (the scan's max is over
            // strings by bytes; such a column invites numbers): left to the SQL path's summary,
            // which takes SQLite's max() over the page's own values.
            if let timestampPath = ingest.timestampPath {
                guard !touched.contains(timestampPath) else { throw PageIngestDecline.timestampIsBookkeeping }
                if let type = ingest.soup.indexSpec(forPath: timestampPath)?.type, type == .integer || type == .floating {
                    throw PageIngestDecline.numericTimestampColumn
                }
            }
            let columnSpecs = ingest.soup.columnSpecs.filter { $0.columnName != nil }
            let readPaths = [ingest.idPath] + (ingest.timestampPath.map { [$0] } ?? []) + columnSpecs.map(\.path)
            let readComponents = readPaths.map { $0.split(separator: ".").map(String.init) }
            let firstNames = Array(Set(readComponents.compactMap(\.first)))
            names = firstNames + touched
            touchedStart = firstNames.count
            readPlans = readComponents.map { components in (firstNames.firstIndex(of: components.first ?? ""), components.dropFirst()) }
            sources = columnSpecs.enumerated().map { offset, spec -> ColumnSource in
                if let value = ingest.setFields[spec.path] { return .set(ProjectedValue.databaseValue(value)) }
                return ingest.removeFields.contains(spec.path) ? .removed : .read(readPaths.count - columnSpecs.count + offset)
            }
            columns = columnSpecs.compactMap(\.columnName)
            recordsPath = ingest.arrayPath == "$" ? [] : ingest.arrayPath.dropFirst(2).split(separator: ".").map(String.init)
        }
    }

    /// The page's records with what their writes need.
    private static func scan(_ bytes: UnsafeBufferPointer<UInt8>, ingest: PageIngest, layout: Layout) throws -> [Found] {
        guard let records = JSONRecordScanner.records(in: bytes, at: layout.recordsPath, names: layout.names), !records.isEmpty else {
            throw PageIngestDecline.noRecordsFound
        }
        var found: [Found] = []
        found.reserveCapacity(records.count)
        var ids: Set<DatabaseValue> = []
        for record in records {
            guard record.isCompactObject else { throw PageIngestDecline.notCompact }
            guard !record.repeatsName else { throw PageIngestDecline.repeatedMemberName }
            guard record.values[layout.touchedStart...].allSatisfy({ $0 == nil }) else { throw PageIngestDecline.holdsBookkeepingField }
            let values = RecordValues(record: record, bytes: bytes, plans: layout.readPlans)
            let idRange = try values.range(0)
            guard !idRange.isEmpty, bytes[idRange.lowerBound] != UInt8(ascii: "{"), bytes[idRange.lowerBound] != UInt8(ascii: "[") else {
                throw PageIngestDecline.noScalarId
            }
            let id = extracted(UnsafeBufferPointer(rebasing: bytes[idRange]))
            guard !id.isNull else { throw PageIngestDecline.noScalarId }
            guard ids.insert(id).inserted else { throw PageIngestDecline.duplicateId }
            let columns = try layout.sources.map { source throws -> Column in
                switch source {
                case .set(let value): return .value(value)
                case .removed: return .value(.null)
                case .read(let path): return column(try values.range(path), in: bytes)
                }
            }
            var timestamp = DatabaseValue.null
            if ingest.timestampPath != nil {
                let value = try values.range(1)
                if !value.isEmpty {
                    timestamp = extracted(UnsafeBufferPointer(rebasing: bytes[value]))
                    // Strings only: SQLite prints other values its own way (reals, `1.0e+20`).
                    guard timestamp.isNull || bytes[value.lowerBound] == UInt8(ascii: "\"") else {
                        throw PageIngestDecline.nonStringTimestamp
                    }
                }
            }
            found.append(Found(range: record.range, idRange: idRange, columns: columns, timestamp: timestamp))
        }
        return found
    }

    /// The values of one record at the read paths.
    private struct RecordValues {
        let record: JSONRecordScanner.Record
        let bytes: UnsafeBufferPointer<UInt8>
        let plans: [(position: Int?, nested: ArraySlice<String>)]

        /// The value at read path `path`, an empty range when absent.
        func range(_ path: Int) throws -> Range<Int> {
            let (position, nested) = plans[path]
            guard let position, var range = record.values[position] else { return 0..<0 }
            for name in nested {
                switch JSONRecordScanner.member(name, in: range, of: bytes) {
                case .found(let member): range = member
                case .absent: return 0..<0
                case .undecidable: throw PageIngestDecline.escapedMemberName
                }
            }
            guard !ScannedPageIngest.escapesNUL(UnsafeBufferPointer(rebasing: bytes[range])) else { throw PageIngestDecline.escapedNUL }
            return range
        }
    }

    /// An index column's value from the value at `range` (empty: absent).
    private static func column(_ range: Range<Int>, in bytes: UnsafeBufferPointer<UInt8>) -> Column {
        if range.isEmpty { return .value(.null) }
        if bytes[range.lowerBound] == UInt8(ascii: "\""), !bytes[range].contains(UInt8(ascii: "\\")) {
            return .text(range.dropFirst().dropLast())
        }
        return .value(extracted(UnsafeBufferPointer(rebasing: bytes[range])))
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

    /// The entry already holding each record's id, by the record's position, matched as the
    /// SQL path matches them (the id column's affinity applies to the record's value).
    /// - Throws: ``PageIngestDecline/idHeldBySeveralEntries`` (the SQL path counts those its own way).
    private static func existingEntries(of found: [Found], in bytes: UnsafeBufferPointer<UInt8>, ingest: PageIngest) throws
        -> [Int: Existing]
    {
        var array: [UInt8] = [UInt8(ascii: "[")]
        for (position, record) in found.enumerated() {
            if position > 0 { array.append(UInt8(ascii: ",")) }
            array.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[record.idRange]))
        }
        array.append(UInt8(ascii: "]"))
        let idExpression = PageUpsertPlan.existingIdExpression(idColumn: ingest.idColumn, idPath: ingest.idPath)
        let dirty = ingest.skipDirty ? PageUpsertPlan.existingIsDirty : "0"
        let stamp = ingest.keepNewer ? ingest.timestampPath.map { Soup.jsonExtract($0, column: "e.soup") } ?? "NULL" : "NULL"
        let rows = try Row.fetchCursor(
            ingest.db,
            sql:
                "SELECT j.key, e.id, \(dirty), \(stamp) FROM json_each(?) AS j JOIN \(ingest.soup.tableName) AS e ON \(idExpression) = j.value",
            arguments: [String(decoding: array, as: UTF8.self)])
        var existing: [Int: Existing] = [:]
        while let row = try rows.next() {
            guard existing.updateValue((row[1], row[2], row[3]), forKey: row[0]) == nil else {
                throw PageIngestDecline.idHeldBySeveralEntries
            }
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
