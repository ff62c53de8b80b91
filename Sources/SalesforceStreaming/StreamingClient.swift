import FastJSON
public import SalesforceREST

/// A CometD (Bayeux 1.0) client for the Salesforce Streaming API, over a `RestClient`'s
/// transport and session: its token goes along and is refreshed after a 401 like any REST call.
///
/// <!-- snippet: Snippets/SalesforceReference.swift#streaming -->
/// ```swift
/// let streaming = StreamingClient(client: restClient)
/// try await streaming.handshake()
/// try await streaming.subscribe("/data/AccountChangeEvent", from: .after(lastReplayId))
/// while true {
///     for event in try await streaming.connect() { handle(event) }  // each connect is one long poll
/// }
/// ```
///
/// Delivery is at most once per connect: when a connect's answer is lost, handshake again and
/// subscribe ``ReplayFrom/after(_:)`` the last replay id processed, and nothing is missed.
public actor StreamingClient {
    /// The REST client whose transport and token the requests use.
    public let client: RestClient
    /// `/cometd/<apiVersion>`.
    public let path: String
    private var clientId: String?
    private var nextId = 0
    /// The `/meta/disconnect` in flight: a second caller waits for it rather than return first.
    private var disconnection: Task<Void, Never>?
    /// How long the server holds a connect (its advice; Salesforce: 110 s).
    public private(set) var longPollTimeout: Duration = .seconds(110)

    /// A client of the Streaming API at `/cometd/<client's API version>` (or `path`).
    public init(client: RestClient, path: String? = nil) {
        self.client = client
        self.path = path ?? "/cometd/\(client.apiVersion)"
    }

    /// Whether a handshake succeeded and the server has not forgotten the client since.
    public var isHandshaken: Bool { clientId != nil }

    /// The Change Data Capture channel of an object: `/data/AccountChangeEvent`,
    /// `/data/Invoice__ChangeEvent` for `Invoice__c`.
    public static func changeEventChannel(for objectName: String) -> String {
        "/data/" + (objectName.hasSuffix("__c") ? String(objectName.dropLast()) : objectName) + "ChangeEvent"
    }

    /// Starts a session: the server gives a client id (every earlier subscription is gone).
    ///
    /// - Throws: ``StreamingError/unavailable(status:)`` when the server has no Streaming API,
    ///   ``StreamingError/handshakeRefused(_:)``, or the REST client's errors (network, session).
    public func handshake() async throws {
        clientId = nil
        let reply = try await exchange(
            ["channel": "/meta/handshake", "version": "1.0", "supportedConnectionTypes": ["long-polling"], "ext": ["replay": true]],
            meta: "/meta/handshake", timeout: .seconds(60))
        guard reply["successful"]?.boolValue == true, let id = reply["clientId"]?.stringValue else {
            throw StreamingError.handshakeRefused(reply["error"]?.stringValue ?? reply.jsonString)
        }
        clientId = id
    }

    /// Subscribes to a channel from a replay position.
    ///
    /// - Throws: ``StreamingError/invalidReplayId(_:)`` when the position is outside the
    ///   retention window, ``StreamingError/subscriptionRefused(channel:message:)``,
    ///   ``StreamingError/unknownClient``.
    public func subscribe(_ channel: String, from replay: ReplayFrom) async throws {
        let reply = try await exchange(
            [
                "channel": "/meta/subscribe", "clientId": .string(try requireClientId()), "subscription": .string(channel),
                "ext": ["replay": .object([channel: .int(replay.replayId)])],
            ], meta: "/meta/subscribe", timeout: .seconds(60))
        guard reply["successful"]?.boolValue == true else {
            let message = reply["error"]?.stringValue ?? reply.jsonString
            if message.contains("replayId {"), message.contains("invalid") { throw StreamingError.invalidReplayId(replay.replayId) }
            throw StreamingError.subscriptionRefused(channel: channel, message: message)
        }
    }

    /// Stops receiving a channel's events.
    public func unsubscribe(_ channel: String) async throws {
        let reply = try await exchange(
            ["channel": "/meta/unsubscribe", "clientId": .string(try requireClientId()), "subscription": .string(channel)],
            meta: "/meta/unsubscribe", timeout: .seconds(60))
        guard reply["successful"]?.boolValue == true else {
            throw StreamingError.subscriptionRefused(channel: channel, message: reply["error"]?.stringValue ?? reply.jsonString)
        }
    }

    /// One long poll: the events the server has for the subscriptions, as soon as it has some,
    /// or none when its timeout passes.
    ///
    /// - Throws: ``StreamingError/unknownClient`` when the server forgot the client (handshake
    ///   and subscribe again), or the REST client's errors.
    public func connect() async throws -> [StreamingEvent] {
        let message: JSONValue = ["channel": "/meta/connect", "clientId": .string(try requireClientId()), "connectionType": "long-polling"]
        let replies = try await post([message], timeout: longPollTimeout + .seconds(30))
        guard let reply = replies.last(where: { $0["channel"]?.stringValue == "/meta/connect" }) else {
            throw StreamingError.protocolError("a connect got no /meta/connect reply")
        }
        if let timeout = reply["advice"]?["timeout"]?.int64Value, timeout > 0, timeout <= 3_600_000 {
            longPollTimeout = .milliseconds(timeout)
        }
        guard reply["successful"]?.boolValue == true else { throw failure(reply) }
        return replies.compactMap { message -> StreamingEvent? in
            guard let channel = message["channel"]?.stringValue, !channel.hasPrefix("/meta/"), let data = message["data"],
                let replayId = data["event"]?["replayId"]?.int64Value
            else { return nil }
            return StreamingEvent(channel: channel, replayId: replayId, data: data)
        }
    }

    /// Ends the session (best effort: the server forgets silent clients anyway). Returns once
    /// the server has answered the disconnect (or 10 s have passed): its pending connect has
    /// then been answered too. Callers at the same time all wait for that one disconnect.
    public func disconnect() async {
        // The disconnect in flight is this session's only while no handshake made a newer one.
        if let disconnection, clientId == nil {
            await disconnection.value
            return
        }
        guard let clientId else { return }
        self.clientId = nil
        let message: JSONValue = ["channel": "/meta/disconnect", "clientId": .string(clientId)]
        let task = Task { _ = try? await self.post([message], timeout: .seconds(10)) }
        disconnection = task
        await task.value
        if disconnection == task { disconnection = nil }
    }

    private func requireClientId() throws -> String {
        guard let clientId else { throw StreamingError.unknownClient }
        return clientId
    }

    private func failure(_ reply: JSONValue) -> StreamingError {
        let message = reply["error"]?.stringValue ?? reply.jsonString
        if message.hasPrefix("403::Unknown client") || reply["advice"]?["reconnect"]?.stringValue == "handshake" {
            clientId = nil
            return .unknownClient
        }
        return .protocolError(message)
    }

    /// Sends one message and returns the reply on its meta channel.
    private func exchange(_ message: JSONValue, meta: String, timeout: Duration) async throws -> JSONValue {
        let replies = try await post([message], timeout: timeout)
        guard let reply = replies.first(where: { $0["channel"]?.stringValue == meta }) else {
            throw StreamingError.protocolError("no \(meta) reply")
        }
        if reply["successful"]?.boolValue != true, reply["error"]?.stringValue?.hasPrefix("403::Unknown client") == true {
            clientId = nil
            throw StreamingError.unknownClient
        }
        return reply
    }

    private func post(_ messages: [JSONValue], timeout: Duration) async throws -> [JSONValue] {
        let numbered = messages.map { message -> JSONValue in
            guard case .object(var fields) = message else { return message }
            nextId += 1
            fields["id"] = .string(String(nextId))
            return .object(fields)
        }
        var request = RestRequest(method: .post, path: path, json: .array(numbered), isIdempotent: false)
        request.timeout = timeout
        let response: RestResponse
        do {
            response = try await client.send(request)
        } catch let error as RestError {
            if let status = error.status, status == 404 || status == 405 { throw StreamingError.unavailable(status: status) }
            throw error
        }
        switch try response.json() {
        case .array(let replies): return replies
        case let single: return [single]
        }
    }
}
