import FastJSON

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
        if case .array(let elements)? = parsed, scanned.1?.count != elements.count {
            fatalError("the scanner found \(scanned.1?.count ?? -1) records of \(elements.count)")
        }
        guard let value = parsed else { return }
        let written = value.jsonBytes
        guard let reparsed = try? JSONValue(parsing: written) else {
            fatalError("written JSON does not parse: \(String(decoding: written, as: UTF8.self))")
        }
        guard reparsed == value else { fatalError("JSON round trip changed the value: \(value.jsonString)") }
    }
}
