import Foundation

/// The time one request reads and writes with.
struct WriteClock: Sendable {
    /// Epoch milliseconds on the server's clock.
    var now: Int64
    /// A late commit: every write keeps `now`, as the stamps of a long transaction do, instead
    /// of taking the next unique tick after the newest write.
    var frozen = false

    /// `now` as a date, for date literals such as `TODAY`.
    var date: Date { Date(timeIntervalSince1970: Double(now) / 1000) }
}
