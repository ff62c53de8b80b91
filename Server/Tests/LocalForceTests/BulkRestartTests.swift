import FastJSON
import Foundation
import LocalForceHTTP
import LocalForcePostgres
import TestSupport
import Testing

@testable import LocalForce

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A Bulk job outlives the process running it: `msync serve` is killed (SIGKILL) in the middle
/// of a 100,000-record job, and another LocalForce on the same database takes the job over and
/// finishes it from its last saved transaction, every record written once. (On PostgreSQL the
/// job has 25,000 records: a debug build writes a record there in about three round trips,
/// and the takeover it tests is the same.)
@Suite struct BulkRestartTests {
    static let onPostgres = !(ProcessInfo.processInfo.environment["LOCALFORCE_TEST_POSTGRES_URL"] ?? "").isEmpty
    static let total = onPostgres ? 25_000 : 100_000

    @Test func aJobKilledMidwayIsFinishedByTheNextProcessExactlyOnce() async throws {
        let binary = try TestServer.msync()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bulk-restart-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // The same database for both processes: a SQLite file, or a PostgreSQL schema.
        var location = folder.appendingPathComponent("org.sqlite").path
        if let url = ProcessInfo.processInfo.environment["LOCALFORCE_TEST_POSTGRES_URL"], !url.isEmpty {
            let schema = "bulk" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
            location = url + (url.contains("?") ? "&" : "?") + "schema=" + schema
        }
        let child = try RunningChild(
            binary, ["serve", "--port", "0", "--token", TestServer.token, "--database", location], output: .standardOutput)
        defer {
            child.kill()
            child.waitUntilExit()
        }
        let banner = await ChildProcess.read(try #require(child.output)) { $0.hasSuffix("\n") }
        let address = try #require(banner.split(separator: "\n").first?.replacingOccurrences(of: "LocalForce listening on ", with: ""))
        let first = TestClient(base: address)

        let csv = "Name,AccountNumber\n" + (0..<Self.total).map { "Account \($0),N\($0)\n" }.joined()
        let id = try #require(
            try await first.json("POST", "jobs/ingest", ["object": "Account", "operation": "insert", "lineEnding": "LF"])?["id"]?
                .stringValue)
        #expect(try await first.send("PUT", "jobs/ingest/\(id)/batches", body: Array(csv.utf8)).status == 201)
        _ = try await first.json("PATCH", "jobs/ingest/\(id)", ["state": "UploadComplete"])
        var processed: Int64 = 0
        let deadline = ContinuousClock.now + .seconds(120)
        while processed < 3_000, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            processed = try await first.json("GET", "jobs/ingest/\(id)")?["numberRecordsProcessed"]?.int64Value ?? 0
        }
        child.kill()
        await child.exited()
        // Killed in the middle: what it committed stays, the rest is still to do.
        #expect(processed >= 3_000 && processed < Int64(Self.total), "killed at \(processed)")

        let database: any SQLDatabase =
            location.hasPrefix("postgres") ? try await PostgresDatabase(url: location, connections: 4) : try SQLiteDatabase(path: location)
        let localForce = try await LocalForce(
            database: database, token: TestServer.token, bulk: BulkOptions(claimTimeout: .milliseconds(500)))
        let server = TestServer(server: try await LocalForceServer.start(localForce))
        defer { Task { await server.stop() } }
        // The job is taken over once its claim goes stale (the new process looks when polled).
        let info = try await BulkClient(server: server).finished(id, stall: .seconds(300))
        #expect(info["state"] == "JobComplete")
        #expect(info["numberRecordsProcessed"]?.int64Value == Int64(Self.total) && info["numberRecordsFailed"]?.int64Value == 0)
        #expect((info["retries"]?.int64Value ?? 0) >= 1)
        let counts = try await localForce.database.read { db in
            (
                try db.scalar("SELECT COUNT(*) FROM \"Account\"")?.integer,
                try db.scalar("SELECT COUNT(DISTINCT \"AccountNumber\") FROM \"Account\"")?.integer
            )
        }
        #expect(counts.0 == Int64(Self.total) && counts.1 == Int64(Self.total))
        let results = try await server.send("GET", "jobs/ingest/\(id)/successfulResults")
        #expect(String(decoding: results.body, as: UTF8.self).split(separator: "\n").count == Self.total + 1)
    }
}

/// A minimal client for a server in another process.
private struct TestClient {
    let base: String

    func send(_ method: String, _ path: String, body: [UInt8]? = nil) async throws -> (status: Int, body: Data) {
        guard let url = URL(string: "\(base)/services/data/v59.0/\(path)") else { throw URLError(.badURL) }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("Bearer \(TestServer.token)", forHTTPHeaderField: "Authorization")
        if let body {
            request.httpBody = Data(body)
            request.setValue(method == "PUT" ? "text/csv" : "application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    func json(_ method: String, _ path: String, _ body: JSONValue? = nil) async throws -> JSONValue? {
        try JSONValue(parsing: try await send(method, path, body: body?.jsonBytes).body)
    }
}
