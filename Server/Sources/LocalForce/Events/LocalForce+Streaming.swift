import FastJSON
import Foundation

/// The Streaming API: CometD (Bayeux 1.0) over HTTP long polling at `/cometd/<version>`, as
/// Salesforce serves it, with the `replay` extension.
extension LocalForce {
    /// Messages one request may carry at most.
    static let maximumBayeuxMessages = 100
    /// Events one connect answer carries at most; the rest follow on the next connect at once.
    static let maximumEventsPerConnect = 1_000
    /// Bytes of events one connect answer carries at most (one event more when a single event
    /// is larger); the rest follow on the next connect at once.
    static let maximumBytesPerConnect = 4 << 20
    /// Events read from the log at a time while an answer is filled.
    static let eventsPerRead = 100

    /// Ends every pending Streaming API long poll at once (each answers with the events it has)
    /// and keeps new ones from waiting: call it when the server stops, so that stopping does not
    /// wait out the long polls' timeouts. `LocalForceServer.stop()` calls it.
    public func endLongPolls() {
        streaming.close()
    }

    /// `POST /cometd/<version>`: a batch of Bayeux messages, answered in one array.
    func streamingRoute(_ request: APIRequest, user: String) async throws -> APIResponse {
        guard request.segments.count == 2, Self.version("v" + request.segments[1].drop(while: { $0 == "v" })) != nil else {
            throw APIError.notFound
        }
        guard request.method == "POST" else {
            throw APIError(405, "METHOD_NOT_ALLOWED", "HTTP Method '\(request.method)' not allowed. Allowed are POST")
        }
        let messages: [JSONValue]
        switch try request.json() {
        case .array(let list): messages = list
        case let single: messages = [single]
        }
        guard messages.count <= Self.maximumBayeuxMessages else {
            throw APIError(400, "LIMIT_EXCEEDED", "At most \(Self.maximumBayeuxMessages) messages per request")
        }
        var replies: [[UInt8]] = []
        var connect: JSONValue?
        for message in messages {
            // A connect waits: it is answered last, after the batch's other messages.
            if message["channel"]?.stringValue == "/meta/connect" {
                guard connect != nil else {
                    connect = message
                    continue
                }
                // One pending connect per client: a second in the same batch is refused, not held.
                let refused = Self.failed(Self.reply(to: message, channel: "/meta/connect"), "400::One /meta/connect per request")
                replies.append(refused.jsonBytes)
                continue
            }
            replies.append(try await bayeux(message, user: user).jsonBytes)
        }
        if let connect { replies += try await connectReply(connect, user: user, connection: request.connection) }
        var writer = JSONWriter(reservingCapacity: 256 + replies.reduce(0) { $0 + $1.count })
        writer.write(punctuation: "[")
        for (index, reply) in replies.enumerated() {
            if index > 0 { writer.write(punctuation: ",") }
            writer.writeRaw(reply)
        }
        writer.write(punctuation: "]")
        return .json(bytes: writer.bytes)
    }

    /// The reply to one message other than a connect.
    private func bayeux(_ message: JSONValue, user: String) async throws -> JSONValue {
        streaming.clients.sweep(now: currentTime(), timeout: streaming.options.clientTimeout.wholeMilliseconds)
        let channel = message["channel"]?.stringValue ?? ""
        var reply = Self.reply(to: message, channel: channel)
        switch channel {
        case "/meta/handshake":
            guard let clientId = streaming.clients.add(userId: user, now: currentTime(), options: streaming.options) else {
                return Self.failed(reply, "503::Too many clients", advice: ["reconnect": "handshake", "interval": 1000])
            }
            reply["clientId"] = .string(clientId)
            reply["version"] = "1.0"
            reply["minimumVersion"] = "1.0"
            reply["supportedConnectionTypes"] = ["long-polling"]
            reply["ext"] = ["replay": true, "payload.format": true]
            reply["successful"] = true
            return .object(reply)
        case "/meta/subscribe", "/meta/unsubscribe":
            guard let clientId = knownClient(message, user: user) else { return Self.unknownClient(reply) }
            reply["clientId"] = .string(clientId)
            guard let name = message["subscription"]?.stringValue else { return Self.failed(reply, "400::A subscription is required") }
            reply["subscription"] = .string(name)
            if channel == "/meta/unsubscribe" {
                streaming.clients.update(clientId) { $0.subscriptions[name] = nil }
                reply["successful"] = true
                return .object(reply)
            }
            if let error = try await subscribe(clientId, to: name, replay: message["ext"]?["replay"]) { return Self.failed(reply, error) }
            reply["successful"] = true
            return .object(reply)
        case "/meta/disconnect":
            guard let clientId = knownClient(message, user: user) else { return Self.unknownClient(reply) }
            streaming.clients.remove(clientId)
            streaming.signal.wake() // its pending connect, if any, answers now
            reply["clientId"] = .string(clientId)
            reply["successful"] = true
            return .object(reply)
        default:
            // Publishing through CometD is not how Salesforce takes events (REST does).
            return Self.failed(reply, "403::Publish denied")
        }
    }

    private func knownClient(_ message: JSONValue, user: String) -> String? {
        guard let id = message["clientId"]?.stringValue, streaming.clients.client(id, userId: user) != nil else { return nil }
        return id
    }

    /// Subscribes a client; returns the Bayeux error when refused.
    private func subscribe(_ clientId: String, to name: String, replay: JSONValue?) async throws -> String? {
        guard let channel = StreamingChannel(name, schema: schema) else {
            return "400::The channel you requested to subscribe to does not exist {\(name)}"
        }
        var requested: Int64 = -1
        if let replay, !replay.isNull, replay.boolValue == nil {
            guard case .object(let map) = replay, let value = map[name] else {
                return
                    "400::The replayId for channel {\(name)} wasn't found using the provided replay ID map {\(replay.jsonString)}. Ensure that the channel name you provided in the replay map is valid and matches the channel name used for subscribing."
            }
            // A whole number only: 1.5 names no event (it is not truncated to 1).
            guard let id = value.int64Value, value.doubleValue.map({ $0.rounded(.towardZero) == $0 }) ?? true else {
                return Self.invalidReplay(value.jsonString)
            }
            requested = id
        }
        let topicName = channel.kind == .pushTopic ? String(name.dropFirst("/topic/".count)) : nil
        let (bounds, topicExists) = try await database.read { db in
            let exists = try topicName.map { topic in
                (try db.scalar(
                    "SELECT count(*) FROM \"PushTopic\" WHERE \"Name\" = \(db.dialect.placeholder(1)) AND \"IsDeleted\" = 0", [.text(topic)]
                )?.integer ?? 0) > 0
            }
            return (try EventLog.bounds(on: db), exists ?? true)
        }
        guard topicExists else { return "400::The channel you requested to subscribe to does not exist {\(name)}" }
        let cursor: Int64
        switch requested {
        case -1: cursor = bounds.upperBound
        case -2: cursor = bounds.lowerBound
        default:
            guard bounds.contains(requested) else { return Self.invalidReplay(String(requested)) }
            cursor = requested
        }
        var full = false
        let known = streaming.clients.update(clientId) { client in
            guard client.subscriptions[name] != nil || client.subscriptions.count < StreamingClients.maximumSubscriptions else {
                full = true
                return
            }
            client.subscriptions[name] = StreamingClients.Subscription(channel: channel, cursor: cursor)
        }
        if !known { return "403::Unknown client" }
        if full { return "400::A client subscribes to \(StreamingClients.maximumSubscriptions) channels at most" }
        streaming.signal.wake() // a waiting connect delivers the replayed events now
        return nil
    }

    private static func invalidReplay(_ id: String) -> String {
        "400::The replayId {\(id)} you provided was invalid.  Please provide a valid ID, -2 to replay all events, or -1 to replay only new events."
    }

    /// A connect: the events its subscriptions have, at once or when some arrive within the
    /// long poll timeout (at once for a client's first connect and for `advice.timeout` 0),
    /// then the connect's reply. A connect
    /// a newer one of the same client replaced answers empty when it next wakes.
    private func connectReply(_ message: JSONValue, user: String, connection: ClientConnection?) async throws -> [[UInt8]] {
        var reply = Self.reply(to: message, channel: "/meta/connect")
        streaming.clients.sweep(now: currentTime(), timeout: streaming.options.clientTimeout.wholeMilliseconds)
        guard let clientId = knownClient(message, user: user) else { return [Self.unknownClient(reply).jsonBytes] }
        reply["clientId"] = .string(clientId)
        var generation: UInt64 = 0
        var first = false
        var replacing = false
        streaming.clients.update(clientId) { client in
            client.connectGeneration &+= 1
            generation = client.connectGeneration
            replacing = client.lastSeen == nil && client.connected
            client.lastSeen = nil
            first = !client.connected
            client.connected = true
        }
        // One pending connect per client: the one this replaces answers now, not at its timeout.
        if replacing { streaming.signal.wake() }
        defer {
            let now = currentTime()
            streaming.clients.update(clientId) { client in if client.connectGeneration == generation { client.lastSeen = now } }
        }
        // The first connect after a handshake answers at once with the advice, as CometD servers
        // (Salesforce's among them) do: clients wait for it before they count as open.
        let immediate = first || message["advice"]?["timeout"]?.int64Value == 0
        let waits = !immediate && streaming.beginLongPoll(user: user)
        defer { if waits { streaming.endLongPoll(user: user) } }
        let deadline = ContinuousClock.now + (waits ? streaming.options.longPollTimeout : .zero)
        guard let events = try await poll(clientId, generation: generation, until: deadline, connection: waits ? connection : nil) else {
            return [Self.unknownClient(reply).jsonBytes]
        }
        if !immediate, !waits, events.isEmpty {
            // Over the long-poll bounds: nothing to wait with; the client retries a second later.
            let refused = Self.failed(
                reply, "403::Organization concurrent user limit exceeded", advice: ["reconnect": "retry", "interval": 1000])
            return [refused.jsonBytes]
        }
        reply["successful"] = true
        if first {
            reply["advice"] = [
                "interval": 0, "timeout": .int(streaming.options.longPollTimeout.wholeMilliseconds), "reconnect": "retry",
            ]
        }
        return events + [JSONValue.object(reply).jsonBytes]
    }

    /// The events due to a connect, at once or when some arrive before `deadline`; nil when the
    /// client is gone. It ends sooner when a newer connect of the client takes over, the server
    /// stops, or `connection` closes (an abandoned poll gives its socket back at once).
    private func poll(_ clientId: String, generation: UInt64, until deadline: ContinuousClock.Instant, connection: ClientConnection?)
        async throws -> [[UInt8]]?
    {
        let unregister = connection?.onClose { [streaming] in streaming.signal.wake() }
        defer { unregister?() }
        while true {
            let seen = streaming.signal.generation
            // A client that left gets nothing: its cursors stay, for its next connect.
            if connection?.isOpen() == false { return [] }
            let events: [[UInt8]]
            switch try await deliver(clientId, generation: generation) {
            case .gone: return nil
            case .superseded: return []
            case .events(let delivered): events = delivered
            }
            let remaining = deadline - ContinuousClock.now
            if !events.isEmpty || remaining <= .zero || streaming.isClosing { return events }
            await streaming.waiting { await streaming.signal.wait(since: seen, timeout: remaining) }
            if Task.isCancelled { return events }
        }
    }

    private enum Delivery {
        case events([[UInt8]])
        /// A newer connect of the client took over.
        case superseded
        /// The client is gone (disconnected or forgotten).
        case gone
    }

    /// The events due to a client's subscriptions, oldest first (at most
    /// ``maximumEventsPerConnect`` and ``maximumBytesPerConnect``), moving its cursors past them.
    private func deliver(_ clientId: String, generation: UInt64) async throws -> Delivery {
        guard let client = streaming.clients.client(clientId) else { return .gone }
        guard client.connectGeneration == generation else { return .superseded }
        let subscriptions = client.subscriptions
        guard let lowest = subscriptions.values.map(\.cursor).min() else { return .events([]) }
        let (messages, covered) = try await due(subscriptions, after: lowest)
        var current = true
        streaming.clients.update(clientId) { client in
            guard client.connectGeneration == generation else {
                current = false
                return
            }
            for (name, delivered) in subscriptions {
                guard var subscription = client.subscriptions[name], subscription.epoch == delivered.epoch else { continue }
                subscription.cursor = max(subscription.cursor, covered)
                client.subscriptions[name] = subscription
            }
        }
        return current ? .events(messages) : .superseded
    }

    /// The messages of the events after `lowest` due to `subscriptions`, read
    /// ``eventsPerRead`` at a time until an answer's bounds are reached, and the replay id up to
    /// which every event of their channels was seen (each subscription's cursor moves there).
    private func due(_ subscriptions: [String: StreamingClients.Subscription], after lowest: Int64) async throws -> (
        messages: [[UInt8]], covered: Int64
    ) {
        let channels = subscriptions.values.map(\.channel)
        var (messages, bytes, read, after) = ([[UInt8]](), 0, 0, lowest)
        while read < Self.maximumEventsPerConnect {
            let (chunk, from) = (min(Self.eventsPerRead, Self.maximumEventsPerConnect - read), after)
            let (latest, rows) = try await database.read { db -> (Int64, [EventLog.Event]) in
                let latest = try EventLog.bounds(on: db).upperBound
                guard from < latest else { return (latest, []) }
                return (latest, try EventLog.events(channels, after: from, limit: chunk, on: db))
            }
            for event in rows {
                let batch = Self.messages(of: event, for: subscriptions)
                let size = batch.reduce(0) { $0 + $1.count }
                // Every event before this one was seen; it opens the next answer.
                if !messages.isEmpty, bytes + size > Self.maximumBytesPerConnect { return (messages, event.replayId - 1) }
                messages += batch
                bytes += size
            }
            read += rows.count
            guard rows.count == chunk, let last = rows.last?.replayId else { return (messages, latest) }
            after = last
        }
        return (messages, after)
    }

    /// An event's messages, one per subscription it is due to (past its cursor, on its channel).
    private static func messages(of event: EventLog.Event, for subscriptions: [String: StreamingClients.Subscription]) -> [[UInt8]] {
        subscriptions.compactMap { name, subscription in
            guard event.replayId > subscription.cursor else { return nil }
            let matches =
                subscription.channel.isAllChangeEvents ? event.channel.hasPrefix("/data/") : event.channel == subscription.channel.name
            return matches ? message(event, on: name) : nil
        }
    }

    /// `{"data": …, "channel": …}`: the stored body completed with its replay id.
    private static func message(_ event: EventLog.Event, on channel: String) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: event.body.utf8.count + 64)
        writer.writeRaw(#"{"data":"#.utf8)
        writer.writeRaw(event.body.utf8)
        writer.writeRaw(#""replayId":"#.utf8)
        writer.write(.int(event.replayId))
        writer.writeRaw(#"}},"channel":"#.utf8)
        writer.writeString(channel)
        writer.write(punctuation: "}")
        return writer.bytes
    }

    private static func reply(to message: JSONValue, channel: String) -> [String: JSONValue] {
        var reply: [String: JSONValue] = ["channel": .string(channel)]
        if let id = message["id"], !id.isNull { reply["id"] = id }
        return reply
    }

    private static func failed(_ reply: [String: JSONValue], _ error: String, advice: JSONValue? = nil) -> JSONValue {
        var reply = reply
        reply["successful"] = false
        reply["error"] = .string(error)
        if let advice { reply["advice"] = advice }
        return .object(reply)
    }

    private static func unknownClient(_ reply: [String: JSONValue]) -> JSONValue {
        failed(reply, "403::Unknown client", advice: ["interval": 0, "reconnect": "handshake"])
    }
}
