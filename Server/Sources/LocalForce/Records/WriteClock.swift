import Foundation
import NIOConcurrencyHelpers

/// The time one request reads and writes with.
struct WriteClock: Sendable {
    /// Epoch milliseconds on the server's clock.
    var now: Int64
    /// A late commit: every write keeps `now`, as the stamps of a long transaction do, instead
    /// of taking the next unique tick after the newest write.
    var frozen = false
    /// The org's stamps where writers run concurrently (``SQLDialect/concurrentWriters``); nil
    /// takes them from the database's clock row.
    var stamps: StampClock? = nil

    /// `now` as a date, for date literals such as `TODAY`.
    var date: Date { Date(timeIntervalSince1970: Double(now) / 1000) }
}

/// Write stamps handed out by one LocalForce where writers run concurrently (PostgreSQL):
/// strictly increasing and unique in this process, without a database row every writer would
/// hold until it commits. Another process's stamps may equal or interleave with these; each
/// record's stamps still increase (its UPDATE takes the larger of the stamp and the record's
/// previous one + 1).
final class StampClock: Sendable {
    private let last = NIOLockedValueBox<Int64>(0)

    /// Reserves `count` consecutive stamps from `now` (or after the last one handed out, if
    /// later); returns the last.
    func reserve(now: Int64, count: Int) -> Int64 {
        let count = Int64(max(1, count))
        return last.withLockedValue { last in
            let first = max(now, last &+ 1)
            last = first &+ (count - 1)
            return last
        }
    }
}
