import FastJSON
import GRDB

extension ScannedPageIngest {
    /// Writes the records found: an INSERT for a new one, an UPDATE for one an entry holds
    /// (skipped when it is dirty and the ingest skips dirty entries), then the full-text rows.
    func write() throws -> PageIngestResult {
        guard let result = try ingest.text.utf8.withContiguousStorageIfAvailable({ try write($0) }) else {
            // The text was contiguous when it was scanned; a String does not move its storage.
            throw SmartStoreError.malformedJSON("Page text moved between its scan and its write")
        }
        return result
    }

    private func write(_ bytes: UnsafeBufferPointer<UInt8>) throws -> PageIngestResult {
        let now = try SmartStore.stamp(ingest.db)
        let statements = try Statements(ingest: ingest, columns: layout.columns, bytes: bytes, now: now, suffix: suffix(now: now))
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
            if let match = existing[position] {
                if ingest.skipDirty && match.dirty || ingest.keepNewer && SQLiteOrder.isGreater(match.timestamp, than: record.timestamp) {
                    skipped += 1
                    continue
                }
                try statements.update(record.range, columns: record.columns, entryId: match.id)
                written.append(match.id)
            } else {
                let entryId = base + Int64(position) + 1
                try statements.insert(record.range, columns: record.columns, entryId: entryId)
                written.append(entryId)
            }
        }
        if let ftsSQL = PageUpsertPlan.fullTextByIdsSQL(ingest.soup), !written.isEmpty {
            try ingest.db.execute(sql: ftsSQL, arguments: [JSONValue.array(written.map(JSONValue.int)).jsonString])
        }
        return PageIngestResult(
            received: found.count, written: written.count, skipped: skipped, maxTimestamp: SQLiteOrder.text(maxTimestamp),
            recordsWithoutTimestamp: missingTimestamps)
    }

    /// What follows the entry id in every document: the members `json_set` would append, in its order.
    private func suffix(now: Int64) -> [UInt8] {
        var suffix = Array(",\"_soupLastModifiedDate\":\(now)".utf8)
        for key in layout.setKeys {
            suffix += Array(",\(JSONValue.string(key).jsonString):".utf8) + (ingest.setFields[key] ?? .null).jsonBytes
        }
        suffix.append(UInt8(ascii: "}"))
        return suffix
    }

    /// The two statements of the write, bound straight from the page's bytes.
    private final class Statements {
        let insert: Statement
        let update: Statement
        let inserting: RawBindings
        let updating: RawBindings
        let bytes: UnsafeBufferPointer<UInt8>
        let suffix: [UInt8]
        private static let entryIdMember = Array(",\"_soupEntryId\":".utf8)
        private var document: [UInt8] = []

        init(ingest: PageIngest, columns: [String], bytes: UnsafeBufferPointer<UInt8>, now: Int64, suffix: [UInt8]) throws {
            let table = ingest.soup.tableName
            insert = try ingest.db.cachedStatement(
                sql: "INSERT INTO \(table) (id, soup, created, lastModified\(columns.map { ", " + $0 }.joined())) VALUES (?, ?, ?, ?"
                    + String(repeating: ", ?", count: columns.count) + ")")
            update = try ingest.db.cachedStatement(
                sql: "UPDATE \(table) SET soup = ?, lastModified = ?\(columns.map { ", \($0) = ?" }.joined()) WHERE id = ?")
            inserting = RawBindings.prepare(insert)
            updating = RawBindings.prepare(update)
            inserting.bind(now, at: 3)
            inserting.bind(now, at: 4)
            updating.bind(now, at: 2)
            (self.bytes, self.suffix) = (bytes, suffix)
        }

        func insert(_ range: Range<Int>, columns: [Column], entryId: Int64) throws {
            inserting.reset()
            inserting.bind(entryId, at: 1)
            bindDocument(range, entryId: entryId, to: inserting, at: 2)
            for (offset, column) in columns.enumerated() { bind(column, to: inserting, at: Int32(offset) + 5) }
            try insert.execute()
        }

        func update(_ range: Range<Int>, columns: [Column], entryId: Int64) throws {
            updating.reset()
            bindDocument(range, entryId: entryId, to: updating, at: 1)
            for (offset, column) in columns.enumerated() { bind(column, to: updating, at: Int32(offset) + 3) }
            updating.bind(entryId, at: Int32(columns.count) + 3)
            try update.execute()
        }

        private func bind(_ column: Column, to bindings: RawBindings, at index: Int32) {
            switch column {
            case .value(let value): bindings.bind(value, at: index)
            case .text(let range): bindings.bindText(UnsafeBufferPointer(rebasing: bytes[range]), at: index)
            }
        }

        /// Binds the record's text with the entry id and the suffix appended.
        private func bindDocument(_ range: Range<Int>, entryId: Int64, to bindings: RawBindings, at index: Int32) {
            document.removeAll(keepingCapacity: true)
            document.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[range.lowerBound..<range.upperBound - 1]))
            // `{}` has no member before the ones appended: no comma.
            document.append(contentsOf: range.count > 2 ? Self.entryIdMember[...] : Self.entryIdMember.dropFirst())
            document.append(contentsOf: String(entryId).utf8)
            document.append(contentsOf: suffix)
            document.withUnsafeBufferPointer { bindings.bindText($0, at: index) }
        }
    }
}
