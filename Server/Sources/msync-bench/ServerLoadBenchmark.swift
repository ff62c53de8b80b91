import ArgumentParser
import FastJSON
import Foundation
import LocalForce
import MobileSync
import NIOConcurrencyHelpers
import SalesforceREST
import SmartStore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `msync-bench server-load`: many syncing clients against LocalForce for a fixed time, in
/// three configurations of one run: one process on SQLite, one process on PostgreSQL, and two
/// processes on one PostgreSQL (clients pick either per request; its baseline is the one
/// PostgreSQL process). Each client owns a slice of the accounts
/// and repeats: resync down, edit two records and create one offline, sync up. At the end
/// every client's soup must equal the server's records of its slice, and the server must hold
/// each create exactly once.
///
/// Needs a PostgreSQL server: `source scripts/postgres.sh` starts a throwaway one and exports
/// `LOCALFORCE_TEST_POSTGRES_URL`, which is the default of `--postgres-url`.
struct ServerLoadBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "server-load", abstract: "Many syncing clients against LocalForce.")

    @Option(help: "Concurrent clients.") var clients = 50
    @Option(help: "Seconds each configuration runs.") var seconds = 20.0
    @Option(help: "Accounts per client at the start.") var accountsPerClient = 40
    @Option(help: "PostgreSQL server (postgres://user:password@host:port/database).") var postgresUrl: String?

    func run() async throws {
        guard let url = postgresUrl ?? ProcessInfo.processInfo.environment["LOCALFORCE_TEST_POSTGRES_URL"], !url.isEmpty else {
            throw BenchError("server-load needs PostgreSQL: --postgres-url, or `source scripts/postgres.sh` first")
        }
        let folder = try SyncBench.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let schema = "load" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        // A fresh schema per configuration: each starts from an empty org.
        let postgres = { (name: String) in url + (url.contains("?") ? "&" : "?") + "schema=" + schema + "_" + name }
        let sqlite = folder.appendingPathComponent("org.sqlite").path
        let sqliteOne = try await measure(databases: [sqlite], label: "sqlite-1-process")
        let postgresOne = try await measure(databases: [postgres("one")], label: "postgres-1-process")
        let postgresTwo = try await measure(databases: [postgres("two"), postgres("two")], label: "postgres-2-processes")
        Self.report(sqliteOne, against: nil)
        Self.report(postgresOne, against: sqliteOne)
        Self.report(postgresTwo, against: postgresOne)
    }

    /// One line: the configuration, and its ratio to `baseline` measured in the same run.
    private static func report(_ outcome: Outcome, against baseline: Outcome?) {
        var line = outcome.report
        if let baseline {
            line["baseline"] = baseline.report["configuration"]
            line["baseline_requests_per_second"] = BenchReport.rounded(baseline.requestsPerSecond, 10)
            line["baseline_p50_ms"] = BenchReport.rounded(baseline.p50, 100)
            line["baseline_p99_ms"] = BenchReport.rounded(baseline.p99, 100)
            line["ratio"] = BenchReport.rounded(outcome.requestsPerSecond / baseline.requestsPerSecond)
        }
        BenchReport.line(line)
    }

    struct Outcome {
        var requestsPerSecond: Double
        var p50: Double
        var p99: Double
        var report: [String: JSONValue]
    }

    /// Runs the clients against one server process per database.
    private func measure(databases: [String], label: String) async throws -> Outcome {
        let token = SyncBench.token
        var servers: [ServerProcess] = []
        defer { for server in servers { server.stop() } }
        for database in databases { servers.append(try await ServerProcess.start(database: database, token: token, accounts: 0)) }
        let urls = servers.map(\.baseURL)
        let recorder = LatencyRecorder()
        // Seed each client's slice through the first server.
        let seeder = RestClient(instanceURL: urls[0], tokenProvider: StaticAccessToken(token))
        for client in 0..<clients {
            let records: [JSONValue] = (0..<accountsPerClient).map {
                ["attributes": ["type": "Account"], "Name": .string("C\(client)-seed-\($0)")]
            }
            for start in stride(from: 0, to: records.count, by: 200) {
                _ = try await seeder.createRecords(Array(records[start..<min(records.count, start + 200)]))
            }
        }
        let deadline = Date().addingTimeInterval(seconds)
        let started = Date()
        let results = try await withThrowingTaskGroup(of: LoadClient.Result.self) { group in
            for index in 0..<clients {
                group.addTask {
                    let client = try LoadClient(index: index, urls: urls, token: token, recorder: recorder)
                    return try await client.run(until: deadline)
                }
            }
            var all: [LoadClient.Result] = []
            for try await result in group { all.append(result) }
            return all
        }
        let elapsed = Date().timeIntervalSince(started)
        // Verification: each client's soup equals its slice on the server; creates exist once.
        var mismatches = 0
        for result in results {
            let server = try await LoadClient.serverSlice(result.index, client: seeder)
            if server != result.local { mismatches += 1 }
            if server.count != accountsPerClient + result.creates { mismatches += 1 }
        }
        guard mismatches == 0 else { throw BenchError("\(label): \(mismatches) client slices differ from the server") }
        let latencies = recorder.sorted
        let requests = latencies.count
        let outcome = Outcome(
            requestsPerSecond: Double(requests) / elapsed, p50: Self.percentile(latencies, 0.5), p99: Self.percentile(latencies, 0.99),
            report: [
                "scenario": "server-load", "configuration": .string(label), "clients": .int(Int64(clients)),
                "seconds": BenchReport.rounded(elapsed),
                "requests": .int(Int64(requests)), "requests_per_second": BenchReport.rounded(Double(requests) / elapsed, 10),
                "p50_ms": BenchReport.rounded(Self.percentile(latencies, 0.5), 100),
                "p99_ms": BenchReport.rounded(Self.percentile(latencies, 0.99), 100),
                "cycles": .int(Int64(results.reduce(0) { $0 + $1.cycles })), "creates": .int(Int64(results.reduce(0) { $0 + $1.creates })),
                "verified": true,
            ])
        return outcome
    }

    static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }
}

/// One client of the load: its own store, syncing its own slice (`Name LIKE 'C<index>-%'`).
struct LoadClient {
    struct Result: Sendable {
        var index: Int
        var cycles: Int
        var creates: Int
        /// Name → Description of the client's soup at the end.
        var local: [String: String]
    }

    let index: Int
    let store: SmartStore
    let manager: SyncManager

    init(index: Int, urls: [URL], token: String, recorder: LatencyRecorder) throws {
        self.index = index
        store = try SmartStore()
        try store.registerSoup(
            "accounts",
            indexSpecs: [
                IndexSpec("Id", .string), IndexSpec("Name", .string), IndexSpec("__local__", .string),
                IndexSpec("__sync_id__", .integer),
            ])
        let transport = TimedTransport(recorder: recorder, urls: urls)
        let client = RestClient(instanceURL: urls[0], tokenProvider: StaticAccessToken(token), transport: transport)
        manager = try SyncManager(store: store, client: client)
    }

    func run(until deadline: Date) async throws -> Result {
        let target = try SoqlSyncDownTarget(query: "SELECT Id, Name, Description FROM Account WHERE Name LIKE 'C\(index)-%'")
        _ = try await manager.createSyncDown(target: target, soupName: "accounts", name: "down")
        var cycles = 0
        var creates = 0
        let options = SyncOptions(fieldlist: ["Name", "Description"])
        while Date() < deadline {
            let down = try await manager.reSync(named: "down")
            guard down.status == .done else { throw BenchError("client \(index): sync down \(down.error)") }
            let entries = try await store.query(.all(soup: "accounts", orderPath: "Name", pageSize: 10_000))
            for offset in 0..<2 where !entries.isEmpty {
                let entry = entries[(cycles * 2 + offset) % entries.count]
                _ = try await store.updateLocally(
                    ["Description": .string("client \(index) cycle \(cycles)")], entryId: entry["_soupEntryId"]?.int64Value ?? -1,
                    in: "accounts")
            }
            try await store.createLocally(
                ["Name": .string("C\(index)-new-\(cycles)"), "Description": "new"], objectType: "Account", in: "accounts")
            creates += 1
            let up = try await manager.syncUp(options: options, soupName: "accounts")
            guard up.status == .done, up.failedRecordCount == 0 else { throw BenchError("client \(index): sync up \(up.error)") }
            cycles += 1
        }
        // A last resync so the soup holds the server's dates and nothing is dirty.
        _ = try await manager.reSync(named: "down")
        var local: [String: String] = [:]
        for entry in try await store.query(.all(soup: "accounts", orderPath: "Name", pageSize: 10_000)) {
            if let name = entry["Name"]?.stringValue { local[name] = entry["Description"]?.stringValue ?? "" }
        }
        return Result(index: index, cycles: cycles, creates: creates, local: local)
    }

    /// Name → Description of a client's slice on the server.
    static func serverSlice(_ index: Int, client: RestClient) async throws -> [String: String] {
        var slice: [String: String] = [:]
        for record in try await client.allRecords("SELECT Name, Description FROM Account WHERE Name LIKE 'C\(index)-%'") {
            if let name = record["Name"]?.stringValue { slice[name] = record["Description"]?.stringValue ?? "" }
        }
        return slice
    }
}

/// Sends each request to one of the servers (chosen at random) and records its latency.
struct TimedTransport: HTTPTransport {
    let recorder: LatencyRecorder
    let urls: [URL]
    let inner = URLSessionTransport()

    func send(_ request: URLRequest) async throws -> (Int, [String: String], [UInt8]) {
        var routed = request
        if let url = request.url, var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let target = urls.randomElement(), let port = target.port
        {
            components.port = port
            routed.url = components.url
        }
        let start = DispatchTime.now().uptimeNanoseconds
        let result = try await inner.send(routed)
        recorder.record(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        return result
    }
}

/// Request latencies in milliseconds, from many tasks.
final class LatencyRecorder: Sendable {
    private let values = NIOLockedValueBox([Double]())
    func record(_ milliseconds: Double) { values.withLockedValue { $0.append(milliseconds) } }
    var sorted: [Double] { values.withLockedValue { $0 }.sorted() }
}
