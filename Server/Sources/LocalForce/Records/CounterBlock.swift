/// Counter values reserved in blocks for one transaction that creates many records (a
/// collections request): one UPDATE per block instead of two statements per record. Values a
/// failed record leaves unused are gaps; timestamps stay strictly increasing and unique across
/// transactions (a block may run up to its size in milliseconds ahead of the clock).
final class CounterBlock {
    private let size: Int
    private var sequences: [String: ClosedRange<Int64>] = [:]
    private var stamps: ClosedRange<Int64>?

    init(size: Int) {
        self.size = max(1, size)
    }

    /// The next value of an id sequence counter.
    func nextSequence(_ counter: String, on db: any SQLConnection) throws -> Int64 {
        if let range = sequences[counter], !range.isEmpty {
            sequences[counter] = range.dropFirst().isEmpty ? nil : (range.lowerBound + 1)...range.upperBound
            return range.lowerBound
        }
        let last = try StorageSchema.reserve(counter, count: size, on: db)
        let first = max(Int64.min + Int64(size), last) - Int64(size) + 1
        if first < last { sequences[counter] = (first + 1)...last }
        return first
    }

    /// The next write timestamp.
    func nextStamp(now: Int64, on db: any SQLConnection) throws -> Int64 {
        if let range = stamps {
            stamps = range.lowerBound < range.upperBound ? (range.lowerBound + 1)...range.upperBound : nil
            return range.lowerBound
        }
        let last = try StorageSchema.reserveTicks(now: now, count: size, on: db)
        let first = max(Int64.min + Int64(size), last) - Int64(size) + 1
        if first < last { stamps = (first + 1)...last }
        return first
    }
}
