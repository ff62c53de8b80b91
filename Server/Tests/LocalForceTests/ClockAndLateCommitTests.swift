import FastJSON
import Foundation
import LocalForceHTTP
import SalesforceWire
import TestSupport
import Testing

@testable import LocalForce

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The server's own clock (an offset from the machine's) and late commits (writes stamped when
/// they arrive but visible only later), as a real org's long transactions behave.
@Suite struct ClockAndLateCommitTests {
    static func server(clockOffset: Duration = .zero) async throws -> TestServer {
        let localForce = try await LocalForce(database: try await TestServer.database(), token: TestServer.token, clockOffset: clockOffset)
        return TestServer(server: try await LocalForceServer.start(localForce))
    }

    static func milliseconds(_ salesforceTime: String?) -> Int64? { salesforceTime.flatMap(SalesforceTime.parse) }

    static var machineNow: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// Ten minutes ahead or behind: the `Date` header and record stamps follow the server's clock.
    @Test(arguments: [600, -600]) func clockOffsetMovesEveryTime(seconds: Int) async throws {
        let server = try await Self.server(clockOffset: .seconds(seconds))
        defer { Task { await server.stop() } }
        // Bounds read around each request (a loaded machine can take seconds to answer).
        let offset = Int64(seconds) * 1000
        let sentAt = Self.machineNow + offset
        let versions = try await server.send("GET", "/services/data/")
        let answeredAt = Self.machineNow + offset
        let date = try #require(versions.headers["date"])
        let header = try #require(HTTPDate.parse(date))
        // The header has whole seconds, so it may read up to a second before the send.
        #expect(header >= sentAt - 1000 && header <= answeredAt, "Date \(date)")
        let createdAfter = Self.machineNow + offset
        let id = try await server.create("Account", ["Name": "Stamped"])
        let createdBefore = Self.machineNow + offset
        let record = try await server.send("GET", "sobjects/Account/\(id)")
        let created = try #require(Self.milliseconds(record.json?["CreatedDate"]?.stringValue))
        #expect(created >= createdAfter - 1 && created <= createdBefore + 1)
    }

    /// A late write keeps the time it arrived, but shows (and answers) only after its delay; a
    /// write arriving meanwhile gets a later stamp and shows at once.
    @Test func lateCommitKeepsItsArrivalTimeAndShowsLater() async throws {
        let server = try await Self.server()
        defer { Task { await server.stop() } }
        let early = try await server.create("Account", ["Name": "Early"])
        let late = try await server.create("Account", ["Name": "Late"])
        let faults = server.server.localForce.faults
        // Held a second at least, and until the steps below are done, however loaded the machine.
        let (held, commit) = AsyncStream<Void>.makeStream()
        let release: @Sendable () async -> Void = {
            try? await Task.sleep(for: .seconds(1))
            for await _ in held {}
        }
        await faults.scheduleLateCommit(matching: { $0.method == "PATCH" && $0.segments.last == late }, until: release)
        let (arrived, arrival) = AsyncStream<Void>.makeStream()
        await faults.observe { request, moment in if moment == .received && request.segments.last == late { arrival.yield() } }
        let started = ContinuousClock.now
        let slow = Task { try await server.send("PATCH", "sobjects/Account/\(late)", json: ["Name": "Late, renamed"]) }
        for await _ in arrived { break }
        #expect(try await server.send("PATCH", "sobjects/Account/\(early)", json: ["Name": "Early, renamed"]).status == 204)
        let midway = try await server.query("SELECT Name, LastModifiedDate FROM Account ORDER BY LastModifiedDate")
        #expect(midway.json?["records"]?.arrayValue?.compactMap { $0["Name"]?.stringValue } == ["Late", "Early, renamed"])
        commit.finish()
        #expect(try await slow.value.status == 204)
        #expect(ContinuousClock.now - started >= .seconds(1))
        let after = try await server.query("SELECT Name, LastModifiedDate FROM Account ORDER BY LastModifiedDate")
        let records = after.json?["records"]?.arrayValue ?? []
        // Visible now, but stamped before the write that showed first.
        #expect(records.compactMap { $0["Name"]?.stringValue } == ["Late, renamed", "Early, renamed"])
    }

    /// `msync serve --clock-offset=-600 --late-commit-rate 1 --late-commit-delay-ms 400`.
    @Test func serveOptions() async throws {
        let binary = try TestServer.msync()
        let process = try RunningChild(
            binary,
            [
                "serve", "--port", "0", "--token", "t", "--clock-offset=-600", "--late-commit-rate", "1", "--late-commit-delay-ms", "400",
                "--event-retention-hours", "24", "--event-retention-count", "1000",
            ],
            output: .standardOutput)
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        let banner = await ChildProcess.read(try #require(process.output)) { $0.hasSuffix("\n") }
        let address = try #require(banner.split(separator: "\n").first?.replacingOccurrences(of: "LocalForce listening on ", with: ""))
        var create = URLRequest(url: try #require(URL(string: address + "/services/data/v66.0/sobjects/Account")))
        create.httpMethod = "POST"
        create.setValue("Bearer t", forHTTPHeaderField: "Authorization")
        create.setValue("application/json", forHTTPHeaderField: "Content-Type")
        create.httpBody = Data(#"{"Name": "Slow"}"#.utf8)
        let sent = Self.machineNow
        let started = ContinuousClock.now
        let (data, response) = try await URLSession.shared.data(for: create)
        #expect((response as? HTTPURLResponse)?.statusCode == 201)
        #expect(ContinuousClock.now - started >= .milliseconds(400))
        let id = try #require(try JSONValue(parsing: data)["id"]?.stringValue)
        var read = URLRequest(url: try #require(URL(string: address + "/services/data/v66.0/sobjects/Account/\(id)")))
        read.setValue("Bearer t", forHTTPHeaderField: "Authorization")
        let (record, _) = try await URLSession.shared.data(for: read)
        let created = try #require(Self.milliseconds(try JSONValue(parsing: record)["CreatedDate"]?.stringValue))
        // Stamped when it arrived (ten minutes behind the machine), not when it showed 400 ms later.
        #expect(abs(created - (sent - 600_000)) < 300, "created \(created), sent \(sent)")
    }
}
