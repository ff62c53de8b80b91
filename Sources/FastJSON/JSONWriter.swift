/// Writes `JSONValue`s as compact UTF-8 JSON straight into a byte buffer.
///
/// This is the stack's hot encoding path: writing bytes directly avoids `JSONEncoder`'s and
/// `JSONSerialization`'s intermediate objects (`msync-bench` measures the paths that use it).
/// Besides whole values it writes pieces (`{`, keys, raw JSON) so producers can stream
/// documents without building them.
public struct JSONWriter: Sendable {
    /// The JSON written so far.
    public var bytes: [UInt8] = []
    /// Whether objects' members are written sorted by key (for output people and diffs read;
    /// otherwise they come in the dictionary's order, which changes from process to process).
    public var sortsKeys = false

    /// An empty writer whose buffer can hold `capacity` bytes before it grows.
    public init(reservingCapacity capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    /// Appends bytes that are already JSON.
    public mutating func writeRaw(_ json: some Sequence<UInt8>) {
        bytes.append(contentsOf: json)
    }

    /// Appends one ASCII punctuation byte (`{`, `}`, `[`, `]`, `,`, `:`).
    public mutating func write(punctuation: Unicode.Scalar) {
        bytes.append(UInt8(truncatingIfNeeded: punctuation.value))
    }

    /// Appends `"key":`.
    public mutating func writeKey(_ key: String) {
        writeString(key)
        bytes.append(UInt8(ascii: ":"))
    }

    /// Appends a value.
    public mutating func write(_ value: JSONValue) {
        switch value {
        case .null: append("null")
        case .bool(let bool): append(bool ? "true" : "false")
        case .int(let int): appendDecimal(int)
        case .double(let double): writeDouble(double)
        case .string(let string): writeString(string)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            var first = true
            for element in elements {
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                write(element)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            if sortsKeys { writeMembers(members.sorted { $0.key < $1.key }) } else { writeMembers(members) }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    private mutating func writeMembers<Members: Sequence<(key: String, value: JSONValue)>>(_ members: Members) {
        var first = true
        for (key, member) in members {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            writeString(key)
            bytes.append(UInt8(ascii: ":"))
            write(member)
        }
    }

    private mutating func append(_ literal: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    private mutating func appendDecimal(_ value: Int64) {
        if value >= 0 && value < 10 {
            bytes.append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        if value == .min {
            append("-9223372036854775808")
            return
        }
        var magnitude = value < 0 ? UInt64(-value) : UInt64(value)
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var count = 0
            repeat {
                digits[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            for position in stride(from: count - 1, through: 0, by: -1) { bytes.append(digits[position]) }
        }
    }

    private mutating func writeDouble(_ double: Double) {
        guard double.isFinite else {
            append("null") // JSON has no NaN or infinity
            return
        }
        if double == double.rounded(), abs(double) < 1e15 {
            appendDecimal(Int64(double))
            bytes.append(contentsOf: [UInt8(ascii: "."), UInt8(ascii: "0")])
            return
        }
        bytes.append(contentsOf: double.description.utf8)
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends a quoted, escaped string.
    public mutating func writeString(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { utf8 in
            var runStart = 0
            for (position, byte) in utf8.enumerated() {
                let escape: UInt8?
                switch byte {
                case UInt8(ascii: "\""): escape = UInt8(ascii: "\"")
                case UInt8(ascii: "\\"): escape = UInt8(ascii: "\\")
                case 0x0A: escape = UInt8(ascii: "n")
                case 0x0D: escape = UInt8(ascii: "r")
                case 0x09: escape = UInt8(ascii: "t")
                case 0..<0x20: escape = 0
                default: continue
                }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<position]))
                runStart = position + 1
                bytes.append(UInt8(ascii: "\\"))
                if let escape, escape != 0 {
                    bytes.append(escape)
                } else {
                    bytes.append(contentsOf: [
                        UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                        Self.hexDigits[Int(byte >> 4)], Self.hexDigits[Int(byte & 0xF)],
                    ])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

extension JSONValue {
    /// The compact JSON text of this value, as UTF-8 bytes.
    public var jsonBytes: [UInt8] {
        var writer = JSONWriter()
        writer.write(self)
        return writer.bytes
    }

    /// The compact JSON text of this value.
    public var jsonString: String {
        String(decoding: jsonBytes, as: UTF8.self)
    }

    /// The compact JSON text of this value with every object's members sorted by key: the same
    /// text for the same value in every process.
    public var sortedJSONBytes: [UInt8] {
        var writer = JSONWriter()
        writer.sortsKeys = true
        writer.write(self)
        return writer.bytes
    }

    /// ``sortedJSONBytes`` as a string.
    public var sortedJSONString: String {
        String(decoding: sortedJSONBytes, as: UTF8.self)
    }
}

extension JSONValue: CustomStringConvertible {
    /// The value as compact JSON text.
    public var description: String { jsonString }
}
