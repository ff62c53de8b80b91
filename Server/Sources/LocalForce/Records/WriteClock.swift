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

/// Write stamps handed out by one LocalForce where writers run concurrently (PostgreSQL),
/// without a database row every writer would hold until it commits: never decreasing in this
/// process, and unique while it writes at most one record a millisecond on average — a burst
/// runs ahead of the clock by up to ``maximumLead`` ms, then repeats a stamp rather than run
/// further ahead. Another process's stamps may equal or interleave with these; each record's
/// stamps still increase (its UPDATE takes the larger of the stamp and its previous one + 1).
final class StampClock: Sendable {
    /// How far ahead of the clock a burst of writes may stamp, in ms.
    static let maximumLead: Int64 = 1000
    private let last = NIOLockedValueBox<Int64>(0)

    /// The next stamp at `now`.
    func next(now: Int64) -> Int64 {
        last.withLockedValue { last in
            if last < now {
                last = now
            } else if last - now < Self.maximumLead {
                last += 1
            }
            return last
        }
    }
}
