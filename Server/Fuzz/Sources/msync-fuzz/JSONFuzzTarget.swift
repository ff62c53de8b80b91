@_spi(MSyncInternal) import FastJSON

/// FastJSON's parser: any bytes parse or throw; what parses writes back to text that parses to
/// the same value. The validator of the bulk ingest accepts exactly what the parser accepts,
/// and the record scanner finds every element of a top-level array, where the parser does.
struct JSONFuzzTarget: FuzzTarget {
    func run(_ data: [UInt8]) {
        let parsed = try? JSONValue(parsing: data)
        let scanned = data.withUnsafeBufferPointer { bytes in
            (JSONValidator.isValid(bytes), JSONRecordScanner.records(in: bytes, at: [], names: ["a", "b"]))
        }
        guard scanned.0 == (parsed != nil) else {
            fatalError("validator says \(scanned.0), parser says \(parsed != nil): \(String(decoding: data, as: UTF8.self))")
        }
        if parsed == nil, scanned.1 != nil { fatalError("the scanner found records in text the parser refuses") }
        if case .array(let elements)? = parsed {
            guard let records = scanned.1, records.count == elements.count else {
                fatalError("the scanner found \(scanned.1?.count ?? -1) records of \(elements.count)")
            }
            for (record, element) in zip(records, elements) { check(record, element, in: data) }
        }
        guard let value = parsed else { return }
        let written = value.jsonBytes
        guard let reparsed = try? JSONValue(parsing: written) else {
            fatalError("written JSON does not parse: \(String(decoding: written, as: UTF8.self))")
        }
        guard reparsed == value else { fatalError("JSON round trip changed the value: \(value.jsonString)") }
    }

    /// A record's range holds its element; a compact object's members "a" and "b" are found
    /// where the parser reads them (the parser keeps the last of repeated names, the scanner
    /// the first, so repeated ones are not compared).
    private func check(_ record: JSONRecordScanner.Record, _ element: JSONValue, in data: [UInt8]) {
        guard (try? JSONValue(parsing: data[record.range])) == element else { fatalError("a record's range is not its element") }
        guard record.isCompactObject, !record.repeatsName, case .object(let members) = element else { return }
        for (position, name) in ["a", "b"].enumerated() {
            let found = record.values[position].flatMap { try? JSONValue(parsing: data[$0]) }
            guard found == members[name] else { fatalError("member \(name) found as \(String(describing: found))") }
        }
    }
}
