import Foundation
import LocalForce
import LocalForceTesting
import SalesforceREST
import SalesforceStreaming
import TestLocking
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `StreamingClient.disconnect()` returns once the server has answered the disconnect, also
/// for a second caller while the first's is on its way (a live sync's own loop disconnects as
/// `stopLiveSync` does): an org stopped right after then has no connect pending.
@Suite struct StreamingDisconnectTests {
    /// Holds `/meta/disconnect` requests back a while, and notes when one was answered.
    struct SlowDisconnects: HTTPTransport {
        let inner: InProcessTransport
        let answered = Locked(false)

        func send(_ request: URLRequest) async throws -> (Int, [String: String], [UInt8]) {
            let isDisconnect = String(decoding: request.httpBody ?? Data(), as: UTF8.self).contains("/meta/disconnect")
            if isDisconnect { try await Task.sleep(for: .milliseconds(300)) }
            let answer = try await inner.send(request)
            if isDisconnect { answered.withLock { $0 = true } }
            return answer
        }
    }

    @Test func everyCallerWaitsForTheServersAnswer() async throws {
        try await withLocalForce(streaming: StreamingOptions(longPollTimeout: .seconds(5))) { localForce, _ in
            let transport = SlowDisconnects(inner: InProcessTransport(localForce))
            let client = RestClient(
                instanceURL: URL(string: "http://localforce.invalid") ?? URL(fileURLWithPath: "/"),
                tokenProvider: StaticAccessToken(TestOrg.token), transport: transport)
            let streaming = StreamingClient(client: client)
            try await streaming.handshake()
            async let first: Bool = {
                await streaming.disconnect()
                return transport.answered.withLock { $0 }
            }()
            async let second: Bool = {
                await streaming.disconnect()
                return transport.answered.withLock { $0 }
            }()
            let (one, two) = await (first, second)
            #expect(one && two, "a disconnect returned before the server answered it")
            #expect(await !streaming.isHandshaken)
        }
    }
}
