import FastJSON
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `msync serve` under macOS's default open-file limit (256): one token holder who opens 300
/// Streaming API long polls and drops them at once stops no one. The abandoned polls end when
/// their connections close, long polls are bounded (a quarter of half the limit per user), and
/// ordinary requests are answered meanwhile.
@Suite struct LowFileLimitTests {
    static func post(_ port: Int, _ body: String) -> String {
        "POST /cometd/66.0 HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAuthorization: Bearer t\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
    }

    /// A handshaken client whose first connect (answered at once) is done: its next connect waits.
    static func client(_ port: Int) async throws -> String {
        let handshake = try await RawSocket.exchange(
            port: port, post(port, #"[{"channel":"/meta/handshake","version":"1.0","supportedConnectionTypes":["long-polling"]}]"#),
            halfClose: false)
        let body = handshake.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
        let id = try #require((try? JSONValue(parsing: Array(body.utf8)))?.arrayValue?.first?["clientId"]?.stringValue, "\(handshake)")
        _ = try await RawSocket.exchange(port: port, post(port, connect(id)), halfClose: false)
        return id
    }

    static func connect(_ id: String) -> String {
        #"[{"channel":"/meta/connect","connectionType":"long-polling","clientId":"\#(id)"}]"#
    }

    @Test func droppedLongPollsUnderALowOpenFileLimitStopNoOne() async throws {
        let serve = try await Background(
            URL(fileURLWithPath: "/bin/sh"),
            ["-c", #"ulimit -n 256 && exec "$0" "$@""#, try Msync.binary().path, "serve", "--port", "0", "--token", "t"],
            until: "LocalForce listening on ")
        defer { serve.stop() }
        let url = try #require(
            serve.output.split(separator: "\n").first { $0.hasPrefix("LocalForce listening on ") }?.split(separator: " ").last,
            "\(serve.output)")
        let port = try #require(URL(string: String(url))?.port)
        var clients: [String] = []
        for _ in 0..<300 { clients.append(try await Self.client(port)) }
        // 300 long polls sent and dropped within about a second.
        for id in clients {
            let socket = try RawSocket.connected(port: port)
            try RawSocket.write(socket, Array(Self.post(port, Self.connect(id)).utf8))
            close(socket)
        }
        let started = ContinuousClock.now
        let limits = try await RawSocket.exchange(
            port: port, "GET /services/data/v66.0/limits HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\nConnection: close\r\n\r\n",
            halfClose: false)
        #expect(limits.hasPrefix("HTTP/1.1 200"), "\(limits.prefix(300))")
        #expect(started.duration(to: .now) < .seconds(30), "an ordinary request waited \(started.duration(to: .now))")
        // The dropped polls gave their places back: a new client's long poll waits (over the
        // bounds it would be refused at once, 403 with retry advice).
        let fresh = try await Self.client(port)
        var waitedAll = false
        for _ in 0..<10 where !waitedAll {
            let socket = try RawSocket.connected(port: port)
            defer { close(socket) }
            try RawSocket.write(socket, Array(Self.post(port, Self.connect(fresh)).utf8))
            try await Task.sleep(for: .seconds(2))
            let early = String(decoding: RawSocket.arrived(socket), as: UTF8.self)
            waitedAll = early.isEmpty
            if !waitedAll { #expect(early.contains("concurrent user limit"), "\(early.prefix(300))") }
        }
        #expect(waitedAll, "a new long poll was refused long after the others were dropped")
    }
}
