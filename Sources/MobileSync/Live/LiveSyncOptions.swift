/// How a live sync reconnects and when it polls instead.
public struct LiveSyncOptions: Sendable, Equatable {
    /// The first wait after a failure (a lost connection, a refused request); it doubles up to
    /// ``maximumBackoff`` and starts over once the sync is live again.
    public var initialBackoff: Duration
    /// The longest wait between attempts.
    public var maximumBackoff: Duration
    /// Without a Streaming API on the server: how often to resync instead.
    public var pollInterval: Duration
    /// While polling: how often to try the Streaming API again.
    public var streamingRetryInterval: Duration

    /// Options; by default a second's backoff doubling to a minute, and a poll every 30 s
    /// that looks for the Streaming API again every 5 minutes.
    public init(
        initialBackoff: Duration = .seconds(1), maximumBackoff: Duration = .seconds(60), pollInterval: Duration = .seconds(30),
        streamingRetryInterval: Duration = .seconds(300)
    ) {
        self.initialBackoff = max(.milliseconds(10), initialBackoff)
        self.maximumBackoff = max(self.initialBackoff, maximumBackoff)
        self.pollInterval = max(.milliseconds(10), pollInterval)
        self.streamingRetryInterval = max(self.pollInterval, streamingRetryInterval)
    }
}
