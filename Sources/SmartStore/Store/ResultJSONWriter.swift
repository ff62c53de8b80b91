import GRDB

/// Writes query results straight to JSON text: soup columns are copied verbatim (they are
/// already JSON), other columns are written as JSON scalars.
enum ResultJSONWriter {
    static func write(_ statement: Statement, asRows: Bool) throws -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 4096)
        writer.bytes.append(UInt8(ascii: "["))
        let names = statement.columnNames
        let soupColumns = names.map { $0 == "soup" || $0.hasPrefix("soup:") }
        let cursor = try Row.fetchCursor(statement)
        var firstRow = true
        while let row = try cursor.next() {
            if !firstRow { writer.bytes.append(UInt8(ascii: ",")) }
            firstRow = false
            if !asRows {
                try appendVerbatim(row, at: 0, to: &writer)
                continue
            }
            writer.bytes.append(UInt8(ascii: "["))
            for index in names.indices {
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

    private static func appendVerbatim(_ row: Row, at index: Int, to writer: inout JSONWriter) throws {
        try row.withUnsafeData(atIndex: index) { data in
            if let data { writer.bytes.append(contentsOf: data) } else { writer.write(.null) }
        }
    }
}
