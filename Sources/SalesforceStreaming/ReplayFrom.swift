/// Where a subscription starts in the channel's retained events (the `replay` extension).
public enum ReplayFrom: Sendable, Equatable {
    /// Only events published after subscribing (replay id -1).
    case newEvents
    /// Every retained event, then new ones (replay id -2).
    case allEvents
    /// The events after this replay id: the last one a client processed, to resume without a gap.
    case after(Int64)

    /// The replay id sent to the server.
    public var replayId: Int64 {
        switch self {
        case .newEvents: -1
        case .allEvents: -2
        case .after(let id): id
        }
    }
}
