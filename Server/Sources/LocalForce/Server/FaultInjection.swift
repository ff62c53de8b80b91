import FastJSON
import Foundation

/// Opt-in faults for reliability testing: a share of requests fail, are delayed, or lose their
/// connection. Off unless configured; also scriptable from tests (`schedule`).
public actor FaultInjection {
    /// What can go wrong with a request.
    public enum Kind: String, Sendable, CaseIterable {
        /// `500 UNKNOWN_EXCEPTION`, nothing done.
        case serverError = "500"
        /// `503 SERVER_UNAVAILABLE`, nothing done.
        case unavailable = "503"
        /// `403 REQUEST_LIMIT_EXCEEDED`, nothing done.
        case requestLimit = "limit"
        /// The connection drops before the request is processed.
        case dropBefore = "drop-before"
        /// The request is processed (its writes committed), then the connection drops: the
        /// client never learns the outcome.
        case dropAfter = "drop-after"
        /// `504 Gateway Time-out` as an HTML page, the request not handled: a gateway in front
        /// of the server gave up before forwarding it.
        case gatewayTimeoutBefore = "gateway-timeout-before"
        /// The request is processed (its writes committed), then `504 Gateway Time-out` as an
        /// HTML page: a gateway gave up waiting for the answer. The client cannot tell this
        /// from the previous kind, and must not take it for "nothing done".
        case gatewayTimeoutAfter = "gateway-timeout-after"
    }

    /// A share of requests (0…1) that fail with one of `kinds`, chosen at random.
    public var rate: Double
    /// The faults `rate` picks from (all of them by default).
    public var kinds: [Kind]
    /// Added before every request is answered.
    public var latency: Duration
    private var scheduled: [(kind: Kind, matches: @Sendable (APIRequest) -> Bool, remaining: Int)] = []
    /// A share of writes (0…1) that commit late: see ``scheduleLateCommit(delay:count:matching:)``.
    public private(set) var lateCommitRate: Double = 0
    /// How late the writes ``lateCommitRate`` picks commit.
    public private(set) var lateCommitDelay: Duration = .seconds(2)
    private var scheduledLateCommits: [(release: @Sendable () async -> Void, matches: @Sendable (APIRequest) -> Bool, remaining: Int)] = []
    /// Answers to rewrite (``scheduleTamper(count:matching:_:)``).
    var scheduledTampers: [(transform: @Sendable (JSONValue) -> JSONValue, matches: @Sendable (APIRequest) -> Bool, remaining: Int)] = []
    private var generator: SystemRandomNumberGenerator = SystemRandomNumberGenerator()
    /// When an observer sees a request.
    public enum Moment: Sendable { case received, processed }
    /// Sees every request (but the versions list) when it is received and after it was
    /// processed, before its response leaves: the moments a client has sent a request whose
    /// outcome it does not know yet (crash tests snapshot the client and the server there).
    public private(set) var observer: (@Sendable (APIRequest, Moment) async -> Void)?

    /// Faults at `rate` (0: none) of `kinds` (empty: all), and `latency` before every answer.
    public init(rate: Double = 0, kinds: [Kind] = Kind.allCases, latency: Duration = .zero) {
        self.rate = rate
        self.kinds = kinds.isEmpty ? Kind.allCases : kinds
        self.latency = latency
    }

    /// Makes the next `count` requests matching `predicate` fail with `kind`.
    public func schedule(_ kind: Kind, count: Int = 1, matching predicate: @escaping @Sendable (APIRequest) -> Bool = { _ in true }) {
        scheduled.append((kind, predicate, count))
    }

    /// Forgets the faults and answer rewrites scheduled and not used yet.
    public func cancelScheduled() {
        scheduled = []
        scheduledTampers = []
    }

    /// Makes the next `count` requests matching `predicate` commit late, as a long transaction
    /// on a real org does: their writes are stamped (`CreatedDate`, `LastModifiedDate`,
    /// `SystemModstamp`) with the time the request arrived, but nothing they write is visible,
    /// and they do not answer, until `delay` later. Writes of other requests meanwhile get later
    /// stamps and are visible at once.
    public func scheduleLateCommit(
        delay: Duration, count: Int = 1, matching predicate: @escaping @Sendable (APIRequest) -> Bool = { _ in true }
    ) {
        scheduleLateCommit(count: count, matching: predicate) { try? await Task.sleep(for: delay) }
    }

    /// As ``scheduleLateCommit(delay:count:matching:)``, but each write commits when `release`
    /// returns rather than after a fixed delay: a test holds the commit for exactly as long as
    /// its steps take, however loaded the machine.
    public func scheduleLateCommit(
        count: Int = 1, matching predicate: @escaping @Sendable (APIRequest) -> Bool = { _ in true },
        until release: @escaping @Sendable () async -> Void
    ) {
        scheduledLateCommits.append((release, predicate, count))
    }

    /// Makes a share of writes (0…1; POST, PATCH, PUT and DELETE requests) commit late by `delay`.
    public func configureLateCommits(rate: Double, delay: Duration) {
        lateCommitRate = min(1, max(0, rate))
        lateCommitDelay = max(.zero, delay)
    }

    /// What this request waits for before it commits, if it commits late (scheduled ones first).
    func lateCommit(for request: APIRequest) -> (@Sendable () async -> Void)? {
        if let index = scheduledLateCommits.firstIndex(where: { $0.remaining > 0 && $0.matches(request) }) {
            scheduledLateCommits[index].remaining -= 1
            let release = scheduledLateCommits[index].release
            scheduledLateCommits.removeAll { $0.remaining <= 0 }
            return release
        }
        guard lateCommitRate > 0, ["POST", "PATCH", "PUT", "DELETE"].contains(request.method),
            Double.random(in: 0..<1, using: &generator) < lateCommitRate
        else { return nil }
        let delay = lateCommitDelay
        return { try? await Task.sleep(for: delay) }
    }

    /// Sets or clears the ``observer``.
    public func observe(_ observer: (@Sendable (APIRequest, Moment) async -> Void)?) {
        self.observer = observer
    }

    /// Changes the random fault settings.
    public func configure(rate: Double, kinds: [Kind] = Kind.allCases, latency: Duration = .zero) {
        self.rate = rate
        self.kinds = kinds.isEmpty ? Kind.allCases : kinds
        self.latency = latency
    }

    /// The fault for this request, if any (scheduled ones first).
    func fault(for request: APIRequest) -> Kind? {
        if let index = scheduled.firstIndex(where: { $0.remaining > 0 && $0.matches(request) }) {
            scheduled[index].remaining -= 1
            let kind = scheduled[index].kind
            scheduled.removeAll { $0.remaining <= 0 }
            return kind
        }
        guard rate > 0, Double.random(in: 0..<1, using: &generator) < rate else { return nil }
        return kinds.randomElement(using: &generator)
    }

    static func response(_ kind: Kind) -> APIResponse? {
        switch kind {
        case .serverError: .error(APIError(500, "UNKNOWN_EXCEPTION", "An unexpected error occurred (injected fault)"))
        case .unavailable: .error(APIError(503, "SERVER_UNAVAILABLE", "Server temporarily unavailable (injected fault)"))
        case .requestLimit: .error(APIError(403, "REQUEST_LIMIT_EXCEEDED", "TotalRequests Limit exceeded."))
        case .gatewayTimeoutBefore, .gatewayTimeoutAfter: gatewayTimeout
        case .dropBefore, .dropAfter: nil
        }
    }

    /// A gateway's answer: not the API's (no JSON, no Salesforce error list).
    static let gatewayTimeout = APIResponse(
        status: 504, headers: ["Content-Type": "text/html"],
        body: Array("<html><head><title>504 Gateway Time-out</title></head><body><h1>504 Gateway Time-out</h1></body></html>\n".utf8))
}
