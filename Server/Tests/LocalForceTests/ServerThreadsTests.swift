import Dispatch
import Foundation
import NIOPosix
import TestLocking
import TestSupport
import Testing

/// The server answers on its own threads: a process whose cooperative pool is busy or blocked
/// (a test suite on two cores) still gets its answers.
@Suite struct ServerThreadsTests {
    @Test func requestsRunOnTheServersEventLoops() async throws {
        try await withServer { server in
            let onEventLoop = Locked<Bool?>(nil)
            await server.server.localForce.faults.observe { _, _ in
                onEventLoop.withLock { $0 = MultiThreadedEventLoopGroup.currentEventLoop != nil }
            }
            let status = try await server.send("GET", "limits").status
            #expect(status == 200)
            if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) {
                #expect(onEventLoop.current == true, "the request ran on the cooperative pool")
            } else {
                // No task executors before these systems: the pool it is.
                #expect(onEventLoop.current == false)
            }
        }
    }

    @Test func answersWhileEveryCooperativeThreadIsBlocked() async throws {
        guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) else { return } // see the test above
        try await withServer { server in
            let port = try #require(server.server.baseURL.port)
            let width = ProcessInfo.processInfo.activeProcessorCount
            let answered = DispatchSemaphore(value: 0)
            let answer = Locked("")
            // Asked from a Dispatch thread, which needs nothing from the pool.
            DispatchQueue.global().async {
                let request =
                    "GET /services/data/v66.0/limits HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Authorization: Bearer \(TestServer.token)\r\nConnection: close\r\n\r\n"
                answer.withLock { $0 = RawSocket.exchangeBlocking(port: port, request) }
                for _ in 0..<width { answered.signal() }
            }
            // Every thread of the pool waits for that answer: an answer that needs one of them
            // comes only after these waits give up.
            let waited = await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<width {
                    group.addTask { answered.wait(timeout: .now() + 20) == .success }
                }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(waited.allSatisfy { $0 }, "the answer waited for the blocked pool")
            #expect(answer.withLock { $0 }.hasPrefix("HTTP/1.1 200"), "\(answer.withLock { $0 })")
        }
    }
}
