import GRDB

/// Turns query rows into results: entries (the first column), or rows as arrays in which a
/// `soup` column (or `soup:N`, SQLite's name for a repeated one) holds an entry.
enum QueryResults {
    /// The results as values; entries are parsed.
    static func values(_ statement: Statement, asRows: Bool) throws -> [JSONValue] {
        let soupColumns = asRows ? soupColumnFlags(statement) : []
        let cursor = try Row.fetchCursor(statement)
        var results: [JSONValue] = []
        while let row = try cursor.next() {
            guard asRows else {
                results.append(try SmartStore.parseSoupColumn(row, at: 0))
                continue
            }
            var values: [JSONValue] = []
            values.reserveCapacity(soupColumns.count)
            for index in soupColumns.indices {
                let value: DatabaseValue = row[index]
                if soupColumns[index], case .string = value.storage {
                    values.append(try SmartStore.parseSoupColumn(row, at: index))
                } else {
                    values.append(ProjectedValue.jsonValue(value))
                }
            }
            results.append(.array(values))
        }
        return results
    }

    /// The results as one JSON array text; entries are copied verbatim (they are already JSON).
    static func json(_ statement: Statement, asRows: Bool) throws -> [UInt8] {
        let soupColumns = asRows ? soupColumnFlags(statement) : []
        var writer = JSONWriter(reservingCapacity: 4096)
        writer.bytes.append(UInt8(ascii: "["))
        let cursor = try Row.fetchCursor(statement)
        var firstRow = true
        while let row = try cursor.next() {
            if !firstRow { writer.bytes.append(UInt8(ascii: ",")) }
            firstRow = false
            guard asRows else {
                try appendVerbatim(row, at: 0, to: &writer)
                continue
            }
            writer.bytes.append(UInt8(ascii: "["))
            for index in soupColumns.indices {
                if index > 0 { writer.bytes.append(UInt8(ascii: ",")) }
                let value: DatabaseValue = row[index]
                if soupColumns[index], case .string = value.storage {
                    try appendVerbatim(row, at: index, to: &writer)
                } else {
                    writer.write(ProjectedValue.jsonValue(value))
                }
            }
            writer.bytes.append(UInt8(ascii: "]"))
        }
        writer.bytes.append(UInt8(ascii: "]"))
        return writer.bytes
    }

    private static func soupColumnFlags(_ statement: Statement) -> [Bool] {
        statement.columnNames.map { $0 == "soup" || $0.hasPrefix("soup:") }
    }

    private static func appendVerbatim(_ row: Row, at index: Int, to writer: inout JSONWriter) throws {
        try row.withUnsafeData(atIndex: index) { data in
            if let data { writer.bytes.append(contentsOf: data) } else { writer.write(.null) }
        }
    }
}
