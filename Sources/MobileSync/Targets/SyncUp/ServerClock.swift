import Foundation
import Locking
import SalesforceREST

/// The server's clock for create stamps, read from the server once per sync up.
///
/// A stamp's `notBefore` must not be later than the `CreatedDate` the server gives the record
/// (whole seconds): a later one would hide the record from the search that adopts a lost
/// create. The first reading is the server's own (its `Date` header, floored to the second).
/// After it, the time is that reading plus the time elapsed since the response arrived, on the
/// monotonic clock (a step of the wall clock cannot move it), floored to the second, less a
/// second: it can only run early, and an early `notBefore` only widens the search. That saves a
/// request per batch — half the requests of a sync up of creates.
final class ServerClock: Sendable {
    private let client: RestClient
    private let reading = Locked<(server: Int64, at: ContinuousClock.Instant)?>(nil)
    /// Taken off later readings, beside the flooring: rate differences between the clocks.
    static let driftMargin: Int64 = 1000

    init(client: RestClient) {
        self.client = client
    }

    /// The server's time now, in milliseconds since 1970, never later than the server's.
    func now() async throws -> Int64 {
        if let (server, at) = reading.current {
            let elapsed = at.duration(to: .now).components
            let milliseconds = elapsed.seconds * 1000 + elapsed.attoseconds / 1_000_000_000_000_000
            let estimate = server + max(0, milliseconds)
            return estimate - estimate % 1000 - Self.driftMargin
        }
        let server = try await client.serverTime()
        let arrived = ContinuousClock.now
        reading.withLock { $0 = $0 ?? (server, arrived) }
        return server
    }
}
