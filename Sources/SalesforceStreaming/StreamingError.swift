/// Why the Streaming API refused or failed a request.
public enum StreamingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server has no Streaming API (the handshake got 404 or 405): poll instead.
    case unavailable(status: Int)
    /// The server forgot the client (`403::Unknown client`: it was silent too long, or the
    /// server restarted): handshake and subscribe again.
    case unknownClient
    /// The replay id is outside the server's retention window (or ahead of its newest event).
    case invalidReplayId(Int64)
    /// The server refused a subscription (an unknown channel, a missing permission).
    case subscriptionRefused(channel: String, message: String)
    /// The server refused the handshake.
    case handshakeRefused(String)
    /// The server answered something that is not Bayeux.
    case protocolError(String)

    /// What happened, in a sentence.
    public var description: String {
        switch self {
        case .unavailable(let status): "The server has no Streaming API (HTTP \(status))"
        case .unknownClient: "The streaming server no longer knows this client (403::Unknown client)"
        case .invalidReplayId(let id): "Replay id \(id) is outside the server's retention window"
        case .subscriptionRefused(let channel, let message): "Subscription to \(channel) refused: \(message)"
        case .handshakeRefused(let message): "Streaming handshake refused: \(message)"
        case .protocolError(let message): "Unexpected streaming answer: \(message)"
        }
    }
}
