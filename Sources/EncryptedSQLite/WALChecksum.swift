/// SQLite's WAL checksum: two running 32-bit sums over 8-byte steps, read big- or
/// little-endian as the log's magic number says.
struct WALChecksum: Equatable {
    var first: UInt32
    var second: UInt32

    /// Adds `bytes` (a multiple of 8 long) to the running checksum.
    mutating func add(_ bytes: UnsafeRawBufferPointer, bigEndian: Bool) {
        var index = 0
        while index + 8 <= bytes.count {
            let a = Self.word(bytes, index, bigEndian)
            let b = Self.word(bytes, index + 4, bigEndian)
            first = first &+ a &+ second
            second = second &+ b &+ first
            index += 8
        }
    }

    /// The checksum stored at `offset` (two big-endian words).
    init(stored bytes: UnsafeRawBufferPointer, at offset: Int) {
        first = Self.word(bytes, offset, true)
        second = Self.word(bytes, offset + 4, true)
    }

    init(first: UInt32, second: UInt32) {
        self.first = first
        self.second = second
    }

    /// Writes the checksum at `offset` (two big-endian words).
    func store(into bytes: UnsafeMutableRawBufferPointer, at offset: Int) {
        for (index, word) in [first, second].enumerated() {
            for byte in 0..<4 { bytes[offset + index * 4 + byte] = UInt8(truncatingIfNeeded: word >> (24 - 8 * byte)) }
        }
    }

    private static func word(_ bytes: UnsafeRawBufferPointer, _ offset: Int, _ bigEndian: Bool) -> UInt32 {
        let value =
            UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
        return bigEndian ? value : value.byteSwapped
    }
}
