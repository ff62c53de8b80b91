import FastJSON
import Foundation
import LocalForceHTTP
import TestSupport
import Testing

@testable import LocalForce

/// Replay: from the newest (-1), from every retained event (-2) or after a given id; the
/// errors Salesforce answers; retention by count and by age; long polls that wake at once.
@Suite struct StreamingReplayTests {
    static func replayIds(_ events: [JSONValue]) -> [Int64] { events.compactMap { $0["data"]?["event"]?["replayId"]?.int64Value } }

    @Test func replayFromAllFromAnIdAndTheErrors() async throws {
        let server = try await TestServer(streaming: StreamingOptions(longPollTimeout: .seconds(1)))
        defer { Task { await server.stop() } }
        for index in 0..<5 { _ = try await server.create("Account", ["Name": .string("A\(index)")]) }

        let all = BayeuxClient(server.server)
        try await all.handshake()
        #expect(try await all.subscribe("/data/AccountChangeEvent", replay: -2)["successful"] == true)
        let replayed = try await all.events(5)
        let ids = Self.replayIds(replayed)
        #expect(ids.count == 5 && ids == ids.sorted())
        #expect(replayed.compactMap { $0["data"]?["payload"]?["Name"]?.stringValue } == ["A0", "A1", "A2", "A3", "A4"])

        // After a given id: the events after it, none before, none twice.
        let after = BayeuxClient(server.server)
        try await after.handshake()
        #expect(try await after.subscribe("/data/AccountChangeEvent", replay: ids[2])["successful"] == true)
        #expect(Self.replayIds(try await after.events(2)) == Array(ids[3...]))
        #expect(try await after.connect().events.isEmpty)

        // -1: only what comes next.
        let fresh = BayeuxClient(server.server)
        try await fresh.handshake()
        try await fresh.subscribe("/data/AccountChangeEvent", replay: -1)
        #expect(try await fresh.connect(timeout: 0).events.isEmpty)
        _ = try await server.create("Account", ["Name": "Next"])
        #expect(try await fresh.events(1).first?["data"]?["payload"]?["Name"] == "Next")

        // Errors, in Salesforce's words.
        let errors = BayeuxClient(server.server)
        try await errors.handshake()
        let future = try await errors.subscribe("/data/AccountChangeEvent", replay: 1_000_000)
        #expect(future["successful"] == false)
        #expect(
            future["error"]
                == "400::The replayId {1000000} you provided was invalid.  Please provide a valid ID, -2 to replay all events, or -1 to replay only new events."
        )
        let unmapped = try await errors.subscribe("/data/AccountChangeEvent", map: ["/data/ContactChangeEvent": -1])
        #expect(unmapped["error"]?.stringValue?.hasPrefix("400::The replayId for channel {/data/AccountChangeEvent} wasn't found") == true)
        for channel in ["/data/NoSuchChangeEvent", "/topic/NoSuchTopic", "/event/Nothing__e", "/u/generic", "/data/PushTopicChangeEvent"] {
            let refused = try await errors.subscribe(channel)
            #expect(refused["error"] == .string("400::The channel you requested to subscribe to does not exist {\(channel)}"), "\(channel)")
        }
        // No replay extension at all: new events only, as -1.
        #expect(try await errors.subscribe("/data/ContactChangeEvent", replay: nil)["successful"] == true)
        // An unknown client, and no token.
        let stranger = try await errors.post([["channel": "/meta/subscribe", "clientId": "nobody", "subscription": "/data/ChangeEvents"]])
        #expect(stranger.replies.first?["error"] == "403::Unknown client")
        let anonymous = try await errors.post([["channel": "/meta/handshake", "version": "1.0"]], authorized: false)
        #expect(anonymous.status == 401)
        // Publishing through CometD is refused.
        let publish = try await errors.post([
            ["channel": "/data/AccountChangeEvent", "clientId": .string(errors.clientId ?? ""), "data": ["x": 1]]
        ])
        #expect(publish.replies.first?["error"] == "403::Publish denied")
        // A replay id that is not whole names no event: refused, not truncated.
        let fraction = try await errors.subscribe(
            "/data/AccountChangeEvent", map: ["/data/AccountChangeEvent": .double(Double(ids[1]) + 0.5)])
        #expect(fraction["error"]?.stringValue?.hasPrefix("400::The replayId {") == true, "\(fraction)")
        // A second connect in one batch is refused as such; the first is answered.
        let connect: JSONValue = ["channel": "/meta/connect", "connectionType": "long-polling", "clientId": .string(errors.clientId ?? "")]
        let twice = try await errors.post([connect, connect])
        #expect(twice.replies.first?["error"] == "400::One /meta/connect per request", "\(twice.replies)")
        #expect(twice.replies.last?["successful"] == true, "\(twice.replies)")
    }

    /// A replay of large events comes in answers bounded in bytes (the rest on the next
    /// connect), every event once and in order.
    @Test func connectAnswersAreBoundedInBytes() async throws {
        let server = try await TestServer(streaming: StreamingOptions(longPollTimeout: .seconds(1)))
        defer { Task { await server.stop() } }
        let text = String(repeating: "x", count: 30_000)
        for index in 0..<200 { _ = try await server.create("Account", ["Name": .string("A\(index)"), "Description": .string(text)]) }
        let client = BayeuxClient(server.server)
        try await client.handshake()
        try await client.subscribe("/data/AccountChangeEvent", replay: -2)
        var names: [String] = []
        var answers: [Int] = []
        while names.count < 200 {
            let (events, reply) = try await client.connect(timeout: 0)
            #expect(reply["successful"] == true)
            names += events.compactMap { $0["data"]?["payload"]?["Name"]?.stringValue }
            answers.append(events.count)
            if answers.count > 20 { break }
        }
        #expect(names == (0..<200).map { "A\($0)" })
        let most = LocalForce.maximumBytesPerConnect / 30_000 + 1
        #expect(answers.allSatisfy { $0 <= most } && answers.count > 1, "\(answers)")
    }

    @Test func retentionByCountAndAge() async throws {
        let server = try await TestServer(streaming: StreamingOptions(retentionCount: 3, longPollTimeout: .seconds(1)))
        defer { Task { await server.stop() } }
        for index in 0..<6 { _ = try await server.create("Account", ["Name": .string("A\(index)")]) }
        let hub = server.server.localForce.streaming
        // Writes apply retention now and then too: together they removed the three oldest.
        try await hub.applyRetention(now: server.server.localForce.currentTime())
        let client = BayeuxClient(server.server)
        try await client.handshake()
        try await client.subscribe("/data/AccountChangeEvent", replay: -2)
        let kept = try await client.events(3)
        #expect(kept.compactMap { $0["data"]?["payload"]?["Name"]?.stringValue } == ["A3", "A4", "A5"])
        // An id retention removed is refused; the newest removed one is still a valid start.
        let ids = Self.replayIds(kept)
        let late = BayeuxClient(server.server)
        try await late.handshake()
        #expect(try await late.subscribe("/data/AccountChangeEvent", replay: ids[0] - 2)["successful"] == false)
        #expect(try await late.subscribe("/data/AccountChangeEvent", replay: ids[0] - 1)["successful"] == true)
        // By age: 73 hours on, every event is past the 72-hour window.
        let later = server.server.localForce.currentTime() + 73 * 3_600_000
        #expect(try await hub.applyRetention(now: later) == 3)
        let empty = BayeuxClient(server.server)
        try await empty.handshake()
        try await empty.subscribe("/data/AccountChangeEvent", replay: -2)
        #expect(try await empty.connect(timeout: 0).events.isEmpty)
    }

    /// Retention by size: the newest events whose bodies fit are kept.
    @Test func retentionBySize() async throws {
        let server = try await TestServer(streaming: StreamingOptions(retentionBytes: 100_000, longPollTimeout: .seconds(1)))
        defer { Task { await server.stop() } }
        let text = String(repeating: "x", count: 30_000)
        for index in 0..<6 { _ = try await server.create("Account", ["Name": .string("A\(index)"), "Description": .string(text)]) }
        try await server.server.localForce.streaming.applyRetention(now: server.server.localForce.currentTime())
        let client = BayeuxClient(server.server)
        try await client.handshake()
        try await client.subscribe("/data/AccountChangeEvent", replay: -2)
        let kept = try await client.events(3)
        #expect(kept.compactMap { $0["data"]?["payload"]?["Name"]?.stringValue } == ["A3", "A4", "A5"])
    }

    /// The first connect after a handshake answers at once with the advice (CometD clients
    /// wait for it to count as open); a stopping server ends a pending long poll at once.
    @Test func theFirstConnectAnswersAtOnceAndStoppingEndsLongPolls() async throws {
        let server = try await TestServer(streaming: StreamingOptions(longPollTimeout: .seconds(90)))
        let client = BayeuxClient(server.server)
        try await client.handshake()
        try await client.subscribe("/data/AccountChangeEvent")
        let opening = ContinuousClock.now
        let first = try await client.connect().reply
        // Far under the 90 s long poll (a loaded suite can delay a step by seconds).
        #expect(ContinuousClock.now - opening < .seconds(45) && first["advice"]?["timeout"] == 90_000, "\(first)")
        let pending = Task { try await client.connect() }
        try await Task.sleep(for: .milliseconds(300))
        let stopping = ContinuousClock.now
        await server.stop()
        #expect(ContinuousClock.now - stopping < .seconds(45))
        _ = try? await pending.value
    }

    /// Long polls whose client closed its socket end at once (they gave their descriptor back),
    /// and a client has one pending connect: a newer one answers the older now.
    @Test func abandonedLongPollsEndAtOnce() async throws {
        let server = try await TestServer(streaming: StreamingOptions(longPollTimeout: .seconds(90)))
        defer { Task { await server.stop() } }
        let hub = server.server.localForce.streaming
        let port = try #require(server.server.baseURL.port)
        for _ in 0..<20 {
            let client = BayeuxClient(server.server)
            try await client.handshake()
            _ = try await client.connect() // the first answers at once
            let body = #"[{"channel":"/meta/connect","connectionType":"long-polling","clientId":"\#(client.clientId ?? "")"}]"#
            let request =
                "POST /cometd/66.0 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(TestServer.token)\r\n"
                + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
            let socket = try RawSocket.connected(port: port)
            try RawSocket.write(socket, Array(request.utf8))
            for _ in 0..<500 where hub.waitingLongPolls == 0 { try await Task.sleep(for: .milliseconds(10)) }
            #expect(hub.waitingLongPolls == 1, "the connect did not wait")
            close(socket)
            for _ in 0..<500 where hub.waitingLongPolls > 0 { try await Task.sleep(for: .milliseconds(10)) }
        }
        var waiting = hub.waitingLongPolls
        for _ in 0..<100 where waiting > 0 {
            try await Task.sleep(for: .milliseconds(50))
            waiting = hub.waitingLongPolls
        }
        #expect(waiting == 0, "\(waiting) abandoned long polls still wait")
        // A second connect of one client answers the first at once.
        let client = BayeuxClient(server.server)
        try await client.handshake()
        _ = try await client.connect()
        let older = Task { try await client.connect() }
        try await Task.sleep(for: .milliseconds(300))
        let started = ContinuousClock.now
        let newer = Task { try await client.connect(timeout: 0) }
        _ = try await older.value
        #expect(ContinuousClock.now - started < .seconds(45))
        _ = try await newer.value
    }

    @Test func aLongPollWakesWhenTheEventCommits() async throws {
        let server = try await TestServer(streaming: StreamingOptions(longPollTimeout: .seconds(90)))
        defer { Task { await server.stop() } }
        let client = BayeuxClient(server.server)
        try await client.handshake()
        try await client.subscribe("/data/AccountChangeEvent")
        _ = try await client.connect(timeout: 0)
        let waiting = Task { try await client.connect() }
        try await Task.sleep(for: .milliseconds(300))
        let written = ContinuousClock.now
        _ = try await server.create("Account", ["Name": "Wake"])
        let (events, reply) = try await waiting.value
        let latency = written.duration(to: .now)
        #expect(events.count == 1 && reply["successful"] == true)
        // Far under the 90 s long poll: the commit woke it (a loaded suite can delay a step by seconds).
        #expect(latency < .seconds(45), "the long poll answered \(latency) after the commit")
        // With nothing to deliver, a long poll answers at its timeout, not before.
        let quiet = try await TestServer(streaming: StreamingOptions(longPollTimeout: .milliseconds(500)))
        defer { Task { await quiet.stop() } }
        let idle = BayeuxClient(quiet.server)
        try await idle.handshake()
        try await idle.subscribe("/data/AccountChangeEvent")
        _ = try await idle.connect() // the first connect answers at once
        let started = ContinuousClock.now
        let empty = try await idle.connect()
        #expect(empty.events.isEmpty && empty.reply["successful"] == true)
        #expect(started.duration(to: .now) >= .milliseconds(450))
    }

    @Test func aLateCommitPublishesLate() async throws {
        let server = try await TestServer(streaming: StreamingOptions(longPollTimeout: .seconds(1)))
        defer { Task { await server.stop() } }
        let client = BayeuxClient(server.server)
        try await client.handshake()
        try await client.subscribe("/data/AccountChangeEvent")
        // Held until the connect below has answered, however loaded the machine.
        let (held, commit) = AsyncStream<Void>.makeStream()
        await server.server.localForce.faults.scheduleLateCommit { for await _ in held {} }
        let writing = Task { try await server.create("Account", ["Name": "Late"]) }
        // While the write waits to commit, nothing is published.
        let early = try await client.connect()
        #expect(early.events.isEmpty)
        commit.finish()
        _ = try await writing.value
        let events = try await client.events(1)
        #expect(events.first?["data"]?["payload"]?["Name"] == "Late")
    }
}
