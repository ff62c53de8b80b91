import LocalForce
import NIOConcurrencyHelpers
import NIOCore

/// Notices when a client leaves a connection (it closed its side, or the connection went), so
/// that a request still waiting on it (a Streaming API long poll) ends at once and gives its
/// descriptor back instead of holding it until its timeout. One per connection, in its
/// pipeline; a request finds its connection's through ``connection(for:)``.
final class ConnectionWatcher: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = NIOAny

    private struct State {
        var closed = false
        var calls: [UInt64: @Sendable () -> Void] = [:]
        var next: UInt64 = 0
    }

    private let state = NIOLockedValueBox(State())
    /// The watchers of the open connections, by channel.
    private static let watchers = NIOLockedValueBox<[ObjectIdentifier: ConnectionWatcher]>([:])

    /// The connection of `channel` as a request sees it; nil when it has no watcher.
    static func connection(for channel: any Channel) -> ClientConnection? {
        guard let watcher = watchers.withLockedValue({ $0[ObjectIdentifier(channel)] }) else { return nil }
        return ClientConnection(
            isOpen: { [weak watcher] in watcher?.state.withLockedValue { !$0.closed } ?? false },
            onClose: { [weak watcher] call in
                let key = watcher?.state.withLockedValue { state -> UInt64? in
                    guard !state.closed else { return nil }
                    state.next &+= 1
                    state.calls[state.next] = call
                    return state.next
                }
                guard let key, let watcher else {
                    call()
                    return {}
                }
                return { [weak watcher] in watcher?.state.withLockedValue { _ = $0.calls.removeValue(forKey: key) } }
            })
    }

    func handlerAdded(context: ChannelHandlerContext) {
        Self.watchers.withLockedValue { $0[ObjectIdentifier(context.channel)] = self }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        Self.watchers.withLockedValue { $0[ObjectIdentifier(context.channel)] = nil }
        close()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .inputClosed? = event as? ChannelEvent { close() }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        close()
        context.fireChannelInactive()
    }

    /// Marks the connection closed and makes the calls registered (once).
    private func close() {
        let calls = state.withLockedValue { state -> [@Sendable () -> Void] in
            guard !state.closed else { return [] }
            state.closed = true
            defer { state.calls = [:] }
            return Array(state.calls.values)
        }
        for call in calls { call() }
    }
}
