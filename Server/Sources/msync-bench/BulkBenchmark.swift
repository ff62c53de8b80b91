import ArgumentParser
import FastJSON
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `msync-bench bulk`: Bulk API 2.0 loads and exports of growing size against LocalForce in a
/// child process, with the server's peak memory for each (it must stay flat as jobs grow:
/// uploads and results stream through the database). The baseline, in the same run, loads the
/// same records through sObject Collections (200 a request), as a REST client would.
struct BulkBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bulk", abstract: "Bulk API 2.0 ingest and query jobs; the server's peak memory per job size.")

    @Option(help: "Job sizes, comma-separated.") var records = "10000,100000"
    @Option(help: "A postgres:// URL to run the org on instead of a SQLite file.") var database: String?

    func run() async throws {
        let sizes = records.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.filter { $0 > 0 }
        for size in sizes { try await measure(size) }
    }

    private func measure(_ size: Int) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bulk-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let token = "bench-token"
        // A fresh org for each size: a new SQLite file, or a new PostgreSQL schema.
        let schema = "bulk" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        let location =
            database.map { $0 + ($0.contains("?") ? "&" : "?") + "schema=" + schema } ?? folder.appendingPathComponent("org.sqlite").path
        let server = try await ServerProcess.start(database: location, token: token, accounts: 0)
        defer { server.stop() }
        let client = BulkBenchClient(base: server.baseURL.absoluteString + "/services/data/v59.0", token: token)
        let csv = folder.appendingPathComponent("accounts.csv")
        guard FileManager.default.createFile(atPath: csv.path, contents: nil) else { throw BenchError("cannot write \(csv.path)") }
        let handle = try FileHandle(forWritingTo: csv)
        handle.write(Data("Name,AccountNumber,Industry,NumberOfEmployees\n".utf8))
        var batch = ""
        for index in 0..<size {
            batch += "Bulk account \(index),B\(index),Energy,\(index % 5000)\n"
            if batch.utf8.count > 1 << 20 {
                handle.write(Data(batch.utf8))
                batch = ""
            }
        }
        handle.write(Data(batch.utf8))
        try handle.close()
        try await Task.sleep(for: .milliseconds(200))
        let idle = server.residentMegabytes
        server.resetPeakMemory()

        let ingest = try await BenchReport.asyncTime {
            let id = try await client.createJob()
            try await client.upload(id, file: csv)
            try await client.finish(id)
        }
        let ingestPeak = server.peakMemoryMegabytes
        server.resetPeakMemory()
        var exported = 0
        let query = try await BenchReport.asyncTime { exported = try await client.export("SELECT Id, Name, AccountNumber FROM Account") }
        let queryPeak = server.peakMemoryMegabytes

        // The baseline: the same records through sObject Collections, 200 a request.
        let baseline = try await BenchReport.asyncTime { try await client.collections(size) }
        BenchReport.throughput(
            scenario: "bulk2 ingest (insert)", records: size, seconds: ingest, baselineSeconds: baseline,
            extra: [
                "baseline": "the same records through sObject Collections, 200 a request",
                "server_idle_rss_mb": BenchReport.rounded(idle, 10), "server_peak_rss_mb": BenchReport.rounded(ingestPeak, 10),
                "database": .string(database == nil ? "sqlite" : "postgresql"),
            ])
        BenchReport.line([
            "scenario": "bulk2 query (export, 50,000 a page)", "records": .int(Int64(exported)), "seconds": BenchReport.rounded(query),
            "records_per_second": .int(Int64(Double(exported) / query)),
            "server_idle_rss_mb": BenchReport.rounded(idle, 10), "server_peak_rss_mb": BenchReport.rounded(queryPeak, 10),
        ])
    }
}

/// The few Bulk and REST calls the benchmark makes.
private struct BulkBenchClient {
    let base: String
    let token: String

    private func request(_ method: String, _ path: String, json: JSONValue? = nil) throws -> URLRequest {
        guard let url = URL(string: base + path) else { throw BenchError("bad URL \(base + path)") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.timeoutInterval = 600
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        if let json {
            request.httpBody = Data(json.jsonBytes)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        return request
    }

    private func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let (data, response) = try await URLSession.shared.data(for: request)
        guard let http = response as? HTTPURLResponse, (200..<300).contains(http.statusCode) else {
            throw BenchError("\(request.httpMethod ?? "") \(request.url?.path ?? ""): \(String(decoding: data, as: UTF8.self))")
        }
        return (data, http)
    }

    func createJob() async throws -> String {
        let (data, _) = try await send(try request("POST", "/jobs/ingest", json: ["object": "Account", "operation": "insert"]))
        guard let id = try JSONValue(parsing: data)["id"]?.stringValue else { throw BenchError("no job id") }
        return id
    }

    func upload(_ id: String, file: URL) async throws {
        var upload = try request("PUT", "/jobs/ingest/\(id)/batches")
        upload.setValue("text/csv", forHTTPHeaderField: "Content-Type")
        let (data, response) = try await URLSession.shared.upload(for: upload, fromFile: file)
        guard (response as? HTTPURLResponse)?.statusCode == 201 else {
            throw BenchError("upload: \(String(decoding: data, as: UTF8.self))")
        }
    }

    func finish(_ id: String) async throws {
        _ = try await send(try request("PATCH", "/jobs/ingest/\(id)", json: ["state": "UploadComplete"]))
        try await wait("/jobs/ingest/\(id)")
    }

    private func wait(_ path: String) async throws {
        while true {
            let (data, _) = try await send(try request("GET", path))
            let state = try JSONValue(parsing: data)["state"]?.stringValue
            if state == "JobComplete" { return }
            if state == "Failed" || state == "Aborted" { throw BenchError("job \(path) ended \(state ?? "")") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Runs a query job and downloads its results; how many rows came.
    func export(_ soql: String) async throws -> Int {
        let (data, _) = try await send(try request("POST", "/jobs/query", json: ["operation": "query", "query": .string(soql)]))
        guard let id = try JSONValue(parsing: data)["id"]?.stringValue else { throw BenchError("no query job id") }
        try await wait("/jobs/query/\(id)")
        var rows = 0
        var locator: String?
        repeat {
            let (_, response) = try await send(
                try request("GET", "/jobs/query/\(id)/results?maxRecords=50000" + (locator.map { "&locator=\($0)" } ?? "")))
            rows += Int(response.value(forHTTPHeaderField: "Sforce-NumberOfRecords") ?? "") ?? 0
            locator = response.value(forHTTPHeaderField: "Sforce-Locator")
        } while locator != nil && locator != "null"
        return rows
    }

    /// Inserts `count` accounts through sObject Collections, 200 a request.
    func collections(_ count: Int) async throws {
        var start = 0
        while start < count {
            let records: [JSONValue] = (start..<min(count, start + 200)).map { index in
                [
                    "attributes": ["type": "Account"], "Name": .string("REST account \(index)"), "AccountNumber": .string("R\(index)"),
                    "Industry": "Energy", "NumberOfEmployees": .int(Int64(index % 5000)),
                ]
            }
            _ = try await send(try request("POST", "/composite/sobjects", json: ["allOrNone": false, "records": .array(records)]))
            start += 200
        }
    }
}
