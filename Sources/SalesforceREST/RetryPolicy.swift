/// How transient failures are retried: exponential backoff with jitter, idempotent requests only.
public struct RetryPolicy: Sendable {
    /// Total attempts, the first included.
    public var maximumAttempts: Int
    /// Delay before the second attempt; doubles each time.
    public var initialDelay: Duration
    /// The longest delay between two attempts.
    public var maximumDelay: Duration

    /// A policy; `maximumAttempts` is at least 1 (1: no retries).
    public init(maximumAttempts: Int = 4, initialDelay: Duration = .milliseconds(100), maximumDelay: Duration = .seconds(5)) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
    }

    /// No retries.
    public static let none = RetryPolicy(maximumAttempts: 1)

    func delay(beforeAttempt attempt: Int) -> Duration {
        let base = initialDelay * (1 << min(attempt - 2, 20))
        let capped = min(base, maximumDelay)
        return capped * Double.random(in: 0.5...1.0)
    }
}
