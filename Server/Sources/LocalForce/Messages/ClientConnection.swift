/// The connection a request came on, as a request that waits sees it (a Streaming API long
/// poll): whether the client is still there, and a way to be told when it leaves, so that an
/// abandoned wait ends at once instead of holding its socket until its timeout.
public struct ClientConnection: Sendable {
    /// Whether the connection is still open.
    public var isOpen: @Sendable () -> Bool
    /// Registers a call made once the connection closes (at once if it has); returns what
    /// unregisters it (a request that stops waiting calls it, so that a long-lived connection
    /// does not collect its requests' calls).
    public var onClose: @Sendable (@escaping @Sendable () -> Void) -> @Sendable () -> Void

    /// A connection seen through these two calls.
    public init(
        isOpen: @escaping @Sendable () -> Bool, onClose: @escaping @Sendable (@escaping @Sendable () -> Void) -> @Sendable () -> Void
    ) {
        self.isOpen = isOpen
        self.onClose = onClose
    }
}
