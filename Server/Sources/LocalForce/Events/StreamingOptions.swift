/// How LocalForce publishes events: what it keeps for replay, and how it serves the Streaming
/// API's long polls.
///
/// Events are kept in the org's database, written in the same transaction as the records they
/// describe, so a subscriber of any LocalForce process on the same database sees them, and a
/// slow or vanished subscriber costs nothing but its replay position.
public struct StreamingOptions: Sendable {
    /// Whether `/cometd/<version>` is served (when not, it answers 404 as a server without the
    /// Streaming API does; events are still kept for replay).
    public var servesStreamingAPI: Bool
    /// Whether writes publish change events (Change Data Capture and PushTopics). Platform
    /// events are published whatever this says: publishing them is what a request asks for.
    public var capturesChanges: Bool
    /// How long an event stays available for replay (Salesforce keeps change events three days).
    public var retentionAge: Duration
    /// How many events stay available for replay at most, all channels together.
    public var retentionCount: Int
    /// How large the events kept for replay may be at most, all together (their bodies'
    /// characters): the oldest go first.
    public var retentionBytes: Int
    /// How long a `/meta/connect` waits for events before answering empty (Salesforce: 110 s).
    public var longPollTimeout: Duration
    /// How long a client may go without a `/meta/connect` before it is forgotten (Salesforce:
    /// 40 s); its next request answers `403::Unknown client`.
    public var clientTimeout: Duration
    /// Clients connected at once at most; a handshake beyond answers `503::Too many clients`.
    public var maximumClients: Int
    /// How often a waiting long poll looks for events another process committed (a shared
    /// database: a file, PostgreSQL). Events of this process wake it at once.
    public var pollInterval: Duration
    /// Long polls waiting at once at most, all users together; one user holds a quarter of
    /// them at most, and never more than half the process's open-file limit wait, so that
    /// ordinary requests always find a descriptor. A connect beyond answers at once: with the
    /// events due, or with `403::Organization concurrent user limit exceeded` and advice to
    /// retry a second later.
    public var maximumLongPolls: Int

    /// Options; the defaults follow Salesforce (three days of events, 110 s long polls).
    public init(
        servesStreamingAPI: Bool = true, capturesChanges: Bool = true, retentionAge: Duration = .seconds(72 * 3600),
        retentionCount: Int = 100_000, retentionBytes: Int = 512 << 20,
        longPollTimeout: Duration = .seconds(110), clientTimeout: Duration = .seconds(40), maximumClients: Int = 10_000,
        pollInterval: Duration = .milliseconds(200), maximumLongPolls: Int = 1_000
    ) {
        self.servesStreamingAPI = servesStreamingAPI
        self.capturesChanges = capturesChanges
        self.retentionAge = max(.seconds(1), retentionAge)
        self.retentionCount = max(1, retentionCount)
        self.retentionBytes = max(1, retentionBytes)
        self.longPollTimeout = max(.milliseconds(10), longPollTimeout)
        self.clientTimeout = max(.seconds(1), clientTimeout)
        self.maximumClients = max(1, maximumClients)
        self.pollInterval = max(.milliseconds(10), pollInterval)
        self.maximumLongPolls = max(1, maximumLongPolls)
    }
}

extension Duration {
    /// Whole milliseconds, saturating.
    var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        let (millis, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        return overflow ? (seconds < 0 ? .min : .max) : millis.addingReportingOverflow(attoseconds / 1_000_000_000_000_000).partialValue
    }
}
