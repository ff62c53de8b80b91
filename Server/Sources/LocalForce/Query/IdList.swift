/// A query cursor's ids, packed: their UTF-8 bytes in one array and where each ends. An 18-character
/// id costs 22 bytes here, against a heap-allocated `String` (about 80 bytes) in an array.
struct IdList: Sendable, Equatable {
    private var bytes: [UInt8] = []
    private var ends: [UInt32] = []

    init(_ ids: some Sequence<String>) {
        for id in ids {
            bytes.append(contentsOf: id.utf8)
            ends.append(UInt32(clamping: bytes.count))
        }
    }

    /// How many ids.
    var count: Int { ends.count }

    /// The memory the list holds, in bytes.
    var byteSize: Int { bytes.count + ends.count * MemoryLayout<UInt32>.size }

    /// The id at `index` (in `0..<count`).
    subscript(index: Int) -> String {
        let start = index == 0 ? 0 : Int(ends[index - 1])
        return String(decoding: bytes[start..<Int(ends[index])], as: UTF8.self)
    }

    /// The ids in `range` (clamped to the list), unpacked for one page.
    func ids(in range: Range<Int>) -> ArraySlice<String> {
        ArraySlice(range.clamped(to: 0..<count).map { self[$0] })
    }

    /// Every id, comma-separated (the form kept in the shared `lf_cursors` table).
    var commaSeparated: String {
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count + ends.count)
        var start = 0
        for end in ends {
            if start > 0 { text.append(UInt8(ascii: ",")) }
            text.append(contentsOf: bytes[start..<Int(end)])
            start = Int(end)
        }
        return String(decoding: text, as: UTF8.self)
    }
}
