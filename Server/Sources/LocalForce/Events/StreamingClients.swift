import Foundation
import NIOConcurrencyHelpers

/// The Bayeux clients of one LocalForce process: each handshake's id, subscriptions and replay
/// positions. A client holds no events, only positions in the ``EventLog``: a slow or vanished
/// one costs a few bytes until it is forgotten (``StreamingOptions/clientTimeout``).
final class StreamingClients: Sendable {
    struct Subscription: Sendable {
        var channel: StreamingChannel
        /// The last replay id delivered (or skipped as not this channel's).
        var cursor: Int64
        /// Set by each subscribe: a delivery computed for an earlier subscription of the
        /// channel (a resubscribe asking for replay landed meanwhile) does not move this one.
        var epoch = UUID()
    }

    struct Client: Sendable {
        var userId: String
        var subscriptions: [String: Subscription] = [:]
        /// When the client was last heard from (ms), or `nil` while a connect is being answered.
        var lastSeen: Int64?
        /// Bumped by each connect: only the newest connect of a client delivers.
        var connectGeneration: UInt64 = 0
        /// Whether a connect was answered already (the first carries the advice).
        var connected = false
    }

    /// Subscriptions per client at most.
    static let maximumSubscriptions = 100
    /// Clients of one user at most (Salesforce's limit of concurrent clients per org), so that
    /// one user cannot take every slot of ``StreamingOptions/maximumClients``.
    static let maximumClientsPerUser = 2_000

    private let clients = NIOLockedValueBox<[String: Client]>([:])
    private let lastSweep = NIOLockedValueBox<Int64>(0)

    /// Registers a new client; `nil` when ``StreamingOptions/maximumClients`` are connected.
    func add(userId: String, now: Int64, options: StreamingOptions) -> String? {
        sweep(now: now, timeout: options.clientTimeout.wholeMilliseconds)
        let id = Self.newClientId()
        let added = clients.withLockedValue { clients -> Bool in
            guard clients.count < options.maximumClients,
                clients.values.lazy.filter({ $0.userId == userId }).count < Self.maximumClientsPerUser
            else { return false }
            clients[id] = Client(userId: userId, lastSeen: now)
            return true
        }
        return added ? id : nil
    }

    /// The client `id` if it exists and belongs to `userId`.
    func client(_ id: String, userId: String) -> Client? {
        clients.withLockedValue { $0[id] }.flatMap { $0.userId == userId ? $0 : nil }
    }

    /// The client `id`, if it exists.
    func client(_ id: String) -> Client? {
        clients.withLockedValue { $0[id] }
    }

    /// Changes a client; returns `false` when it is gone.
    @discardableResult
    func update(_ id: String, _ change: (inout Client) -> Void) -> Bool {
        clients.withLockedValue { clients in
            guard var client = clients[id] else { return false }
            change(&client)
            clients[id] = client
            return true
        }
    }

    func remove(_ id: String) {
        _ = clients.withLockedValue { $0.removeValue(forKey: id) }
    }

    var count: Int { clients.withLockedValue { $0.count } }

    /// Forgets clients not heard from for `timeout` ms (at most one sweep a second).
    func sweep(now: Int64, timeout: Int64) {
        let due = lastSweep.withLockedValue { last -> Bool in
            guard now - last >= 1000 else { return false }
            last = now
            return true
        }
        guard due else { return }
        clients.withLockedValue { clients in
            clients = clients.filter { _, client in client.lastSeen.map { now - $0 < timeout } ?? true }
        }
    }

    /// 27 lower-case letters and digits, as Salesforce's client ids look.
    private static func newClientId() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<27).map { _ in alphabet[Int(generator.next(upperBound: UInt64(alphabet.count)))] })
    }
}
