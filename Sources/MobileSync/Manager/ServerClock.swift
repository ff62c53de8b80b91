import Foundation
import Locking
import SalesforceREST

/// The server's clock for create stamps, read from the server once per sync up.
///
/// A stamp's `notBefore` must not be later than the server's time when the create commits:
/// a later one would hide the record from the search that adopts a lost create. The first
/// reading is the server's own (its `Date` header, floored to the second); after it, the time is
/// the local clock plus the offset measured then — measured against the local time after the
/// response arrived, so it can only run early — less a second for drift. That saves a request per
/// batch (half the requests of a sync up of creates); an early `notBefore` only widens the search.
final class ServerClock: Sendable {
    private let client: RestClient
    private let offset = Locked<Int64?>(nil)
    /// Taken off later readings: clock drift within one sync.
    static let driftMargin: Int64 = 1000

    init(client: RestClient) {
        self.client = client
    }

    /// The server's time now, in milliseconds since 1970, never later than the server's.
    func now() async throws -> Int64 {
        if let offset = offset.current { return SyncManager.now() + offset - Self.driftMargin }
        let server = try await client.serverTime()
        let measured = server - SyncManager.now()
        offset.withLock { $0 = $0.map { min($0, measured) } ?? measured }
        return server
    }
}
