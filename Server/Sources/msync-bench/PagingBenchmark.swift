import ArgumentParser
import FastJSON
import Foundation
import MobileSync
import SalesforceREST
import SmartStore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `msync-bench paging-sync`: a full sync from LocalForce's plain paging API (`/api/Account`),
/// then a resync after 1% changed on the server (0.5% updated, 0.5% deleted). Baseline for the
/// full sync: the same pages over plain HTTP, decoded, inserted with prepared statements; for
/// the resync: the full sync.
struct PagingBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "paging-sync", abstract: "Sync with a plain paging REST API.")

    @Option(help: "Accounts on the server.") var records = 100_000
    @Option(help: "Records per page.") var pageSize = 1000
    @Option(help: "Where LocalForce runs: child or in-process.") var server: ServerPlacement = .child

    static let path = "/api/Account?key=Id&fields=Id,Name,Industry,NumberOfEmployees,BillingCity,Phone,Description"

    func run() async throws {
        let folder = try SyncBench.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bench = try await SyncBench.start(accounts: records, folder: folder, placement: server)
        let baselineSeconds = try await BenchReport.asyncTime { try await baseline(bench, folder: folder) }

        let target = try PagingSyncDownTarget(
            url: Self.path, keyField: "Id", keyType: .string, pageSize: pageSize,
            recordsPath: "records", totalSizePath: "totalSize")
        bench.resetPeakMemory()
        var requests = bench.client.requestCount
        var full: SyncState?
        let seconds = try await BenchReport.asyncTime {
            full = try await bench.manager.syncDown(target: target, soupName: "accounts", name: "paging")
        }
        guard full?.status == .done, try await bench.store.count(.all(soup: "accounts", pageSize: 1)) == records else {
            throw BenchError("paging sync did not complete: \(full?.error ?? "")")
        }
        BenchReport.throughput(
            scenario: "paging-sync", records: records, seconds: seconds, baselineSeconds: baselineSeconds,
            extra: bench.memoryReport.merging([
                "requests": .int(Int64(bench.client.requestCount - requests)),
                "page_size": .int(Int64(pageSize)),
            ]) { $1 })

        let changed = max(2, records / 100)
        let ids = try await bench.client.query("SELECT Id FROM Account ORDER BY Name LIMIT \(changed)").records().compactMap {
            $0["Id"]?.stringValue
        }
        let (updated, deleted) = (Array(ids.prefix(changed / 2)), Array(ids.dropFirst(changed / 2)))
        for start in stride(from: 0, to: updated.count, by: 200) {
            _ = try await bench.client.updateRecords(
                updated[start..<min(updated.count, start + 200)].map {
                    ["attributes": ["type": "Account"], "Id": .string($0), "Industry": "Changed"]
                })
        }
        for start in stride(from: 0, to: deleted.count, by: 200) {
            _ = try await bench.client.deleteRecords(Array(deleted[start..<min(deleted.count, start + 200)]))
        }
        bench.resetPeakMemory()
        requests = bench.client.requestCount
        var resync: SyncState?
        let resyncSeconds = try await BenchReport.asyncTime { resync = try await bench.manager.reSync(named: "paging") }
        guard resync?.status == .done, resync?.recordsDeleted == deleted.count else {
            throw BenchError("paging resync deleted \(resync?.recordsDeleted ?? -1), expected \(deleted.count): \(resync?.error ?? "")")
        }
        BenchReport.throughput(
            scenario: "paging-resync", records: records, seconds: resyncSeconds, baselineSeconds: seconds,
            extra: bench.memoryReport.merging([
                "requests": .int(Int64(bench.client.requestCount - requests)),
                "updated": .int(Int64(updated.count)), "deleted": .int(Int64(deleted.count)),
                "baseline": "full paging sync",
            ]) { $1 })
        await bench.stop()
    }

    /// The same pages with URLSession, decoded, inserted with prepared statements.
    private func baseline(_ bench: SyncBench, folder: URL) async throws {
        let database = try RawSQLite(path: folder.appendingPathComponent("paging-baseline.sqlite").path)
        try database.execute(
            """
            CREATE TABLE T (id INTEGER PRIMARY KEY AUTOINCREMENT, soup TEXT, created INTEGER, lastModified INTEGER, c0 TEXT, c1 TEXT, c2 TEXT, c3 TEXT, c4 INTEGER);
            CREATE INDEX T_0 ON T (c0); CREATE INDEX T_1 ON T (c1); CREATE INDEX T_2 ON T (c2); CREATE INDEX T_3 ON T (c3); CREATE INDEX T_4 ON T (c4);
            """)
        let insert = try database.prepare(
            "INSERT INTO T (soup, created, lastModified, c0, c1, c2, c3, c4) VALUES (?, 0, 0, ?, ?, '', 'false', 1)")
        let session = URLSession(configuration: .ephemeral)
        var index = 0
        while let url = URL(string: bench.baseURL.absoluteString + Self.path + "&pageIndex=\(index)&pageSize=\(pageSize)") {
            var request = URLRequest(url: url)
            request.setValue("Bearer \(SyncBench.token)", forHTTPHeaderField: "Authorization")
            let (data, _) = try await session.data(for: request)
            let records = try JSONValue(parsing: data)["records"]?.arrayValue ?? []
            try database.execute("BEGIN")
            for record in records {
                insert.bind(1, record.jsonBytes)
                insert.bind(2, record["Id"]?.stringValue ?? "")
                insert.bind(3, record["Name"]?.stringValue ?? "")
                try insert.run()
            }
            try database.execute("COMMIT")
            if records.count < pageSize { return }
            index += 1
        }
    }
}
