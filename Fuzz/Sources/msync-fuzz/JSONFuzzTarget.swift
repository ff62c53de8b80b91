import FastJSON

/// FastJSON's parser: any bytes parse or throw; what parses writes back to text that parses to
/// the same value.
struct JSONFuzzTarget: FuzzTarget {
    func run(_ data: [UInt8]) {
        guard let value = try? JSONValue(parsing: data) else { return }
        let written = value.jsonBytes
        guard let reparsed = try? JSONValue(parsing: written) else {
            fatalError("written JSON does not parse: \(String(decoding: written, as: UTF8.self))")
        }
        guard reparsed == value else { fatalError("JSON round trip changed the value: \(value.jsonString)") }
    }
}
