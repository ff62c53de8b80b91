/// Counter values reserved in blocks for one transaction that creates many records (a
/// collections request): one statement per block instead of two per record. Values a failed
/// record leaves unused are gaps. Timestamps from the clock row stay strictly increasing and
/// unique across transactions (a block may run up to its size in milliseconds ahead of the
/// clock); where writers run concurrently, ``RecordWriter`` takes them from the process's
/// ``StampClock`` instead.
final class CounterBlock {
    private let size: Int
    /// Record numbers left per object, the next one last.
    private var numbers: [String: [Int64]] = [:]
    private var stamps: ClosedRange<Int64>?

    init(size: Int) {
        self.size = max(1, size)
    }

    /// The next record number of `object` (see ``StorageSchema/recordNumbers(_:count:on:)``).
    func nextRecordNumber(_ object: ObjectDefinition, on db: any SQLConnection) throws -> Int64 {
        if let next = numbers[object.name]?.popLast() { return next }
        var reserved = try StorageSchema.recordNumbers(object, count: size, on: db)
        reserved.reverse()
        let next = reserved.popLast() ?? 0
        numbers[object.name] = reserved
        return next
    }

    /// The next write timestamp from the clock row.
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
