import FastJSON
import Foundation
import LocalForceHTTP
import TestLocking

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A minimal Bayeux (CometD) client for LocalForce's `/cometd/<version>`, speaking the wire
/// format directly so tests see every field of every reply.
final class BayeuxClient: Sendable {
    let baseURL: URL
    let version: String
    let token: String
    private let state = Locked<(clientId: String?, nextId: Int)>((nil, 0))
    /// A session of its own: a shared one would queue many clients' long polls behind its
    /// per-host connection limit.
    private let session: URLSession

    init(_ server: LocalForceServer, version: String = "59.0", token: String = TestServer.token) {
        self.baseURL = server.baseURL
        self.version = version
        self.token = token
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 300
        session = URLSession(configuration: configuration)
    }

    var clientId: String? { state.current.clientId }

    /// Posts messages and returns the reply array (and the HTTP status).
    func post(_ messages: [JSONValue], authorized: Bool = true) async throws -> (status: Int, replies: [JSONValue]) {
        var request = URLRequest(url: baseURL.appendingPathComponent("cometd/\(version)"))
        request.httpMethod = "POST"
        request.timeoutInterval = 300
        if authorized { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let numbered = messages.map { message -> JSONValue in
            guard case .object(var fields) = message else { return message }
            let id = state.withLock { state -> Int in
                state.nextId += 1
                return state.nextId
            }
            if fields["id"] == nil { fields["id"] = .string(String(id)) }
            return .object(fields)
        }
        request.httpBody = Data(JSONValue.array(numbered).jsonBytes)
        let (data, response) = try await session.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let json = try? JSONValue(parsing: data)
        return (status, json?.arrayValue ?? (json.map { [$0] } ?? []))
    }

    /// Handshakes; returns the reply.
    @discardableResult
    func handshake() async throws -> JSONValue {
        let reply =
            try await post([
                ["channel": "/meta/handshake", "version": "1.0", "supportedConnectionTypes": ["long-polling"], "ext": ["replay": true]]
            ]).replies.first ?? .null
        if let id = reply["clientId"]?.stringValue { state.withLock { $0.clientId = id } }
        return reply
    }

    /// Subscribes with a replay id (`nil`: no replay extension); returns the reply.
    @discardableResult
    func subscribe(_ channel: String, replay: Int64? = -1, map: JSONValue? = nil) async throws -> JSONValue {
        var message: [String: JSONValue] = ["channel": "/meta/subscribe", "subscription": .string(channel), "clientId": clientIdValue]
        if let map {
            message["ext"] = ["replay": map]
        } else if let replay {
            message["ext"] = ["replay": .object([channel: .int(replay)])]
        }
        return try await post([.object(message)]).replies.first ?? .null
    }

    /// One connect: the data messages delivered, and the connect's reply.
    func connect(timeout: Int? = nil) async throws -> (events: [JSONValue], reply: JSONValue) {
        var message: [String: JSONValue] = ["channel": "/meta/connect", "connectionType": "long-polling", "clientId": clientIdValue]
        if let timeout { message["advice"] = ["timeout": .int(Int64(timeout))] }
        let replies = try await post([.object(message)]).replies
        return (
            replies.filter { $0["channel"]?.stringValue != "/meta/connect" },
            replies.last { $0["channel"]?.stringValue == "/meta/connect" } ?? .null
        )
    }

    /// Connects until `count` events arrived (or `deadline` passed); returns them.
    func events(_ count: Int, within deadline: Duration = .seconds(60)) async throws -> [JSONValue] {
        let end = ContinuousClock.now + deadline
        var events: [JSONValue] = []
        while events.count < count, ContinuousClock.now < end {
            let (more, reply) = try await connect()
            guard reply["successful"]?.boolValue == true else { throw TestFailure("connect failed: \(reply.jsonString)") }
            events += more
        }
        return events
    }

    private var clientIdValue: JSONValue { clientId.map(JSONValue.string) ?? .null }
}
