import GRDB
import GRDBSQLite

/// Turns query rows into results: entries (the first column), or rows as arrays in which a
/// `soup` column (or `soup:N`, SQLite's name for a repeated one) holds an entry.
enum QueryResults {
    /// The results as values; entries are parsed.
    static func values(_ statement: Statement, asRows: Bool) throws -> [JSONValue] {
        let cursor = try Row.fetchCursor(statement)
        var results: [JSONValue] = []
        var soupColumns: [Bool] = []
        while let row = try cursor.next() {
            if asRows, results.isEmpty { soupColumns = soupColumnFlags(statement) }
            guard asRows else {
                results.append(try SmartStore.parseSoupColumn(row, at: 0))
                continue
            }
            var values: [JSONValue] = []
            values.reserveCapacity(soupColumns.count)
            for index in soupColumns.indices {
                if soupColumns[index], let text = Self.text(statement, index) {
                    values.append(try SmartStore.parseEntry(text))
                } else {
                    values.append(ProjectedValue.jsonValue(DatabaseValue(sqliteStatement: statement.sqliteStatement, index: CInt(index))))
                }
            }
            results.append(.array(values))
        }
        return results
    }

    /// The results as one JSON array text; entries are copied verbatim (they are already JSON).
    static func json(_ statement: Statement, asRows: Bool) throws -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 4096)
        writer.bytes.append(UInt8(ascii: "["))
        let cursor = try Row.fetchCursor(statement)
        var firstRow = true
        var soupColumns: [Bool] = []
        while let row = try cursor.next() {
            if asRows, firstRow { soupColumns = soupColumnFlags(statement) }
            if !firstRow { writer.bytes.append(UInt8(ascii: ",")) }
            firstRow = false
            guard asRows else {
                try appendVerbatim(row, at: 0, to: &writer)
                continue
            }
            writer.bytes.append(UInt8(ascii: "["))
            for index in soupColumns.indices {
                if index > 0 { writer.bytes.append(UInt8(ascii: ",")) }
                if soupColumns[index], let text = Self.text(statement, index) {
                    writer.bytes.append(contentsOf: text)
                } else {
                    writer.write(ProjectedValue.jsonValue(DatabaseValue(sqliteStatement: statement.sqliteStatement, index: CInt(index))))
                }
            }
            writer.bytes.append(UInt8(ascii: "]"))
        }
        writer.bytes.append(UInt8(ascii: "]"))
        return writer.bytes
    }

    /// The text of column `index` of the current row, or `nil` when it is not text. Read from the
    /// statement itself: GRDB's `Row` keeps the column count it saw before the first step (see
    /// ``soupColumnFlags(_:)``), and refuses (a trap) any index beyond it.
    private static func text(_ statement: Statement, _ index: Int) -> UnsafeBufferPointer<UInt8>? {
        let live = statement.sqliteStatement
        guard sqlite3_column_type(live, CInt(index)) == SQLITE_TEXT, let bytes = sqlite3_column_text(live, CInt(index)) else {
            return nil
        }
        return UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(live, CInt(index))))
    }

    /// Which columns hold entries, read from the statement as it runs now. Read after the first
    /// step: when the schema changed since the statement was cached, SQLite prepares it again
    /// then, and its columns may differ from the ones GRDB noted (its `columnNames` and each `Row`'s
    /// count are kept from before): the row arrays are read from the statement, not from `Row`.
    private static func soupColumnFlags(_ statement: Statement) -> [Bool] {
        let live = statement.sqliteStatement
        return (0..<sqlite3_column_count(live)).map { index in
            guard let name = sqlite3_column_name(live, index) else { return false }
            let text = String(cString: name)
            return text == "soup" || text.hasPrefix("soup:")
        }
    }

    private static func appendVerbatim(_ row: Row, at index: Int, to writer: inout JSONWriter) throws {
        try row.withUnsafeData(atIndex: index) { data in
            if let data { writer.bytes.append(contentsOf: data) } else { writer.write(.null) }
        }
    }
}
