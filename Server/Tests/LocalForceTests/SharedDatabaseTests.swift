import FastJSON
import Foundation
import LocalForceHTTP
import LocalForcePostgres
@_spi(MSyncInternal) import SalesforceWire
import Testing

@testable import LocalForce

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Two LocalForce servers on one database (PostgreSQL in the suite's PostgreSQL run, a SQLite
/// file otherwise), as behind a load balancer: writes from both get unique ids and increasing
/// `LastModifiedDate`s (unique across both on SQLite; on PostgreSQL, whose writers hold no
/// shared clock row, unique per server and increasing per record), and a query cursor opened on
/// one is served by the other.
@Suite struct SharedDatabaseTests {
    /// Two handles on the same new database.
    static func sharedDatabases() async throws -> (any SQLDatabase, any SQLDatabase, cleanup: () -> Void) {
        if let url = ProcessInfo.processInfo.environment["LOCALFORCE_TEST_POSTGRES_URL"], !url.isEmpty {
            let schema = "s" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            let shared = url + (url.contains("?") ? "&" : "?") + "schema=" + schema
            return (try await PostgresDatabase(url: shared, connections: 4), try await PostgresDatabase(url: shared, connections: 4), {})
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("localforce-shared-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("org.sqlite").path
        return (try SQLiteDatabase(path: path), try SQLiteDatabase(path: path), { try? FileManager.default.removeItem(at: folder) })
    }

    static func send(
        _ server: LocalForceServer, _ method: String, _ path: String, json: JSONValue? = nil,
        headers: [String: String] = [:]
    ) async throws -> JSONValue {
        guard let url = URL(string: server.baseURL.absoluteString + path) else { throw URLError(.badURL) }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("Bearer \(TestServer.token)", forHTTPHeaderField: "Authorization")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let json {
            request.httpBody = Data(json.jsonBytes)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, _) = try await URLSession.shared.data(for: request)
        return try JSONValue(parsing: data)
    }

    @Test func twoServersOnOneDatabase() async throws {
        let (first, second, cleanup) = try await Self.sharedDatabases()
        defer { cleanup() }
        let a = try await LocalForceServer.start(try await LocalForce(database: first, token: TestServer.token))
        let b = try await LocalForceServer.start(try await LocalForce(database: second, token: TestServer.token))
        do {
            // Both write at once: 2 × 3 collection requests of 150 records.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (server, prefix) in [(a, "A"), (b, "B")] {
                    group.addTask {
                        for batch in 0..<3 {
                            let records: [JSONValue] = (0..<150).map {
                                ["attributes": ["type": "Account"], "Name": .string("\(prefix)\(batch)-\($0)")]
                            }
                            let results = try await Self.send(
                                server, "POST", "/services/data/v66.0/composite/sobjects", json: ["records": .array(records)])
                            #expect(results.arrayValue?.allSatisfy { $0["success"] == true } == true)
                        }
                    }
                }
                try await group.waitForAll()
            }
            // A cursor opened on A, continued on B.
            let soql =
                "SELECT Id, Name, LastModifiedDate FROM Account ORDER BY LastModifiedDate".addingPercentEncoding(
                    withAllowedCharacters: .alphanumerics) ?? ""
            var page = try await Self.send(
                a, "GET", "/services/data/v66.0/query?q=\(soql)", headers: ["Sforce-Query-Options": "batchSize=200"])
            var records = page["records"]?.arrayValue ?? []
            #expect(page["totalSize"] == 900)
            var servers = [b, a]
            while let next = page["nextRecordsUrl"]?.stringValue {
                page = try await Self.send(servers[0], "GET", next)
                servers.reverse()
                records += page["records"]?.arrayValue ?? []
            }
            let ids = records.compactMap { $0["Id"]?.stringValue }
            let stamps = records.compactMap { $0["LastModifiedDate"]?.stringValue }
            #expect(ids.count == 900 && Set(ids).count == 900, "every record once")
            #expect(stamps == stamps.sorted(), "in LastModifiedDate order across both servers")
            let concurrent = try await first.read { db in db.dialect.concurrentWriters }
            for prefix in concurrent ? ["A", "B"] : [""] {
                let own = records.filter { $0["Name"]?.stringValue?.hasPrefix(prefix) ?? true }.compactMap {
                    $0["LastModifiedDate"]?.stringValue
                }
                #expect(
                    Set(own).count == own.count, "LastModifiedDate unique \(prefix.isEmpty ? "across both servers" : "on server \(prefix)")"
                )
            }
        } catch {
            await a.stop()
            await b.stop()
            throw error
        }
        await a.stop()
        await b.stop()
    }

    /// A record's stamps increase whichever server writes it, even one whose clock is behind
    /// (ten minutes here): its update and its delete take the previous stamp + 1.
    @Test func aRecordsStampsIncreaseWhicheverServerWrites() async throws {
        let (first, second, cleanup) = try await Self.sharedDatabases()
        defer { cleanup() }
        let ahead = try await LocalForceServer.start(
            try await LocalForce(database: first, token: TestServer.token, clockOffset: .seconds(600)))
        let behind = try await LocalForceServer.start(try await LocalForce(database: second, token: TestServer.token))
        defer {
            Task {
                await ahead.stop()
                await behind.stop()
            }
        }
        let base = "/services/data/v66.0/"
        let id = try #require(try await Self.send(ahead, "POST", base + "sobjects/Account", json: ["Name": "Shared"])["id"]?.stringValue)
        func stamp() async throws -> String {
            let soql =
                "SELECT SystemModstamp FROM Account WHERE Id = '\(id)'".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let records = try await Self.send(behind, "GET", base + "queryAll?q=\(soql)")["records"]?.arrayValue
            return try #require(records?.first?["SystemModstamp"]?.stringValue)
        }
        let created = try await stamp()
        // 204 without a body: what they did shows in the stamps.
        _ = try? await Self.send(behind, "PATCH", base + "sobjects/Account/\(id)", json: ["Name": "Renamed behind"])
        let updated = try await stamp()
        #expect(updated > created)
        _ = try? await Self.send(behind, "DELETE", base + "sobjects/Account/\(id)")
        #expect(try await stamp() > updated)
    }

    /// A database whose id counter predates the id sequences (PostgreSQL) goes on after it.
    @Test func idsGoOnAfterACounterFromBefore() async throws {
        let (first, second, cleanup) = try await Self.sharedDatabases()
        defer { cleanup() }
        let server = try await LocalForceServer.start(try await LocalForce(database: first, token: TestServer.token))
        _ = try await first.write { db in
            try db.execute(
                "INSERT INTO lf_counters (name, value) VALUES ('seq:Account', 500) ON CONFLICT (name) DO UPDATE SET value = 500", [])
        }
        await server.stop()
        let restarted = try await LocalForceServer.start(try await LocalForce(database: second, token: TestServer.token))
        defer { Task { await restarted.stop() } }
        let created = try await Self.send(restarted, "POST", "/services/data/v66.0/sobjects/Account", json: ["Name": "After"])
        #expect(created["id"]?.stringValue == SalesforceId(prefix: "001", sequence: 501).value)
    }
}
