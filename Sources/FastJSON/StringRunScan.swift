/// Finds the next byte that ends a run of plain string bytes, eight bytes at a time (SWAR):
/// the quote, the backslash, control characters and bytes of multi-byte UTF-8 sequences.
enum StringRunScan {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// High bit set in the bytes of `word` below `limit` (at most 0x80). Borrows can mark bytes
    /// above the first one found too, never below it: the lowest bit is exact.
    @inline(__always)
    private static func below(_ limit: UInt8, _ word: UInt64) -> UInt64 {
        (word &- ones &* UInt64(limit)) & ~word & highs
    }

    @inline(__always)
    private static func equal(_ byte: UInt8, _ word: UInt64) -> UInt64 {
        below(1, word ^ (ones &* UInt64(byte)))
    }

    @inline(__always)
    private static func word(_ base: UnsafePointer<UInt8>, _ index: Int) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
    }

    /// The index of the first quote, backslash, control character or byte of 0x80 or more at
    /// or after `index`, or the end.
    @inline(__always)
    static func nextSpecial(_ bytes: UnsafeBufferPointer<UInt8>, from index: Int) -> Int {
        guard let base = bytes.baseAddress else { return bytes.count }
        var index = index
        while index + 8 <= bytes.count {
            let value = word(base, index)
            let found = equal(UInt8(ascii: "\""), value) | equal(UInt8(ascii: "\\"), value) | below(0x20, value) | (value & highs)
            if found != 0 { return index + found.trailingZeroBitCount >> 3 }
            index += 8
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80 { return index }
            index += 1
        }
        return index
    }
}
