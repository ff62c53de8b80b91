import ArgumentParser
import FastJSON
import Foundation
import GRDBSQLite
import LocalForce
import MobileSync
import SalesforceREST
import SmartStore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `msync-bench sync-down`: a full sync and a resync after 1% changed, against a baseline that
/// fetches the same pages with plain HTTP and inserts them with plain SQLite; then the cost of
/// the resync's late-commit window, against the same resync without it (the SDK's).
struct SyncDownBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "sync-down", abstract: "Full sync down and 1% resync against LocalForce.")

    @Option(help: "Accounts on the server.") var records = 100_000
    @Option(help: "Where LocalForce runs: child or in-process.") var server: ServerPlacement = .child
    @Option(
        help:
            "Record stamps: spread (over the last 30 days, as in a real org) or recent (all just written: every record in the late-commit window, the worst case)."
    )
    var stamps: SeedStamps = .spread

    enum SeedStamps: String, ExpressibleByArgument { case spread, recent }

    func run() async throws {
        let folder = try SyncBench.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bench = try await SyncBench.start(accounts: records, folder: folder, placement: server)
        if stamps == .spread { try Self.spreadStamps(folder: folder) }

        // Baseline: the same pages over plain HTTP (URLSession), decoded, inserted with prepared statements.
        let baselineSeconds = try await BenchReport.asyncTime { try await Self.baseline(bench, folder: folder) }

        bench.resetPeakMemory()
        let requestsBefore = bench.client.requestCount
        var full: SyncState?
        let seconds = try await BenchReport.asyncTime {
            full = try await bench.manager.syncDown(
                target: try SoqlSyncDownTarget(query: SyncBench.query), soupName: "accounts", name: "accounts")
        }
        guard full?.status == .done, try await bench.store.count(.all(soup: "accounts", pageSize: 1)) == records else {
            throw BenchError("sync down did not complete: \(full?.error ?? "")")
        }
        BenchReport.throughput(
            scenario: "sync-down", records: records, seconds: seconds, baselineSeconds: baselineSeconds,
            extra: bench.memoryReport.merging(["requests": .int(Int64(bench.client.requestCount - requestsBefore))]) { $1 })
        // The same sync without the late-commit window (the SDK's resync), into a second soup.
        let sdkTarget = try SoqlSyncDownTarget(query: SyncBench.query, lateCommitWindowMilliseconds: 0)
        _ = try await bench.manager.syncDown(target: sdkTarget, soupName: "accounts_sdk", name: "accounts-sdk")

        // 1% changed on the server, then both resyncs, in turn first (two rounds).
        let changed = max(1, records / 100)
        var (windowSeconds, sdkSeconds, windowRequests, sdkRequests) = (0.0, 0.0, 0, 0)
        for round in 0..<2 {
            try await Self.change(changed, round: round, bench: bench)
            for name in round == 0 ? ["accounts-sdk", "accounts"] : ["accounts", "accounts-sdk"] {
                let before = bench.client.requestCount
                var resync: SyncState?
                let time = try await BenchReport.asyncTime { resync = try await bench.manager.reSync(named: name) }
                guard resync?.status == .done, resync?.totalSize == changed, resync?.recordsFetched == changed else {
                    throw BenchError(
                        "resync \(name) fetched \(resync?.totalSize ?? -1) / \(resync?.recordsFetched ?? -1), expected \(changed)")
                }
                if name == "accounts" {
                    windowSeconds += time
                    windowRequests += bench.client.requestCount - before
                } else {
                    sdkSeconds += time
                    sdkRequests += bench.client.requestCount - before
                }
            }
        }
        BenchReport.throughput(
            scenario: "resync", records: changed, seconds: windowSeconds / 2, baselineSeconds: seconds,
            extra: bench.memoryReport.merging([
                "requests": .int(Int64(windowRequests / 2)),
                "baseline": "full sync down", "share_of_full_sync": BenchReport.rounded(windowSeconds / 2 / seconds, 10000),
                "stamps": .string(stamps.rawValue), "without_late_commit_window_seconds": BenchReport.rounded(sdkSeconds / 2, 10000),
                "without_late_commit_window_requests": .int(Int64(sdkRequests / 2)),
                "ratio_to_without_window": BenchReport.rounded(windowSeconds / max(sdkSeconds, 1e-9), 1000),
            ]) { $1 })
        await bench.stop()
    }

    /// Updates `count` accounts on the server (a different slice each round).
    static func change(_ count: Int, round: Int, bench: SyncBench) async throws {
        // Every page of the answer (a query page holds 2,000 records), and no OFFSET (at most 2,000).
        var page = try await bench.client.query("SELECT Id FROM Account ORDER BY Name LIMIT \(count * (round + 1))")
        var all: [String] = []
        while true {
            all += try page.records().compactMap { $0["Id"]?.stringValue }
            guard !page.done, let next = page.nextRecordsURL else { break }
            page = try await bench.client.queryMore(next)
        }
        let ids = Array(all.dropFirst(round * count))
        for start in stride(from: 0, to: ids.count, by: 200) {
            _ = try await bench.client.updateRecords(
                ids[start..<min(ids.count, start + 200)].map {
                    ["attributes": ["type": "Account"], "Id": .string($0), "Industry": .string("Changed \(round)")]
                })
        }
    }

    /// Moves the seeded accounts' stamps back over the last 30 days (a real org's records were
    /// not all written a moment ago), directly in the org's database file.
    static func spreadStamps(folder: URL) throws {
        let database = try RawSQLite(path: folder.appendingPathComponent("org.sqlite").path)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let month: Int64 = 30 * 86_400_000
        try database.execute(
            """
            UPDATE "Account" SET "LastModifiedDate" = \(now) - 60000 - (rowid * 7919 * 1000) % \(month),
                "SystemModstamp" = \(now) - 60000 - (rowid * 7919 * 1000) % \(month), "CreatedDate" = \(now) - \(month) - 60000
            """)
    }

    static func baseline(_ bench: SyncBench, folder: URL) async throws {
        let database = try RawSQLite(path: folder.appendingPathComponent("baseline-\(UUID().uuidString).sqlite").path)
        try database.execute(
            """
            CREATE TABLE T (id INTEGER PRIMARY KEY AUTOINCREMENT, soup TEXT, created INTEGER, lastModified INTEGER, c0 TEXT, c1 TEXT, c2 TEXT, c3 TEXT, c4 INTEGER);
            CREATE INDEX T_created ON T (created); CREATE INDEX T_lastModified ON T (lastModified);
            CREATE INDEX T_0 ON T (c0); CREATE INDEX T_1 ON T (c1); CREATE INDEX T_2 ON T (c2); CREATE INDEX T_3 ON T (c3); CREATE INDEX T_4 ON T (c4);
            """)
        let insert = try database.prepare(
            "INSERT INTO T (soup, created, lastModified, c0, c1, c2, c3, c4) VALUES (?, 0, 0, ?, ?, ?, 'false', 1)")
        let session = URLSession(configuration: .ephemeral)
        let soql = try SoqlSyncDownTarget(query: SyncBench.query).completedQuery
        var next: String? = "/services/data/v66.0/query?q=" + (soql.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        while let path = next, let url = URL(string: bench.baseURL.absoluteString + path) {
            var request = URLRequest(url: url)
            request.setValue("Bearer \(SyncBench.token)", forHTTPHeaderField: "Authorization")
            let (data, _) = try await session.data(for: request)
            let page = try JSONValue(parsing: data)
            try database.execute("BEGIN")
            for record in page["records"]?.arrayValue ?? [] {
                insert.bind(1, record.jsonBytes)
                insert.bind(2, record["Id"]?.stringValue ?? "")
                insert.bind(3, record["Name"]?.stringValue ?? "")
                insert.bind(4, record["LastModifiedDate"]?.stringValue ?? "")
                try insert.run()
            }
            try database.execute("COMMIT")
            next = page["nextRecordsUrl"]?.stringValue
        }
    }
}

/// `msync-bench sync-up`: locally created records through the collection target, against the
/// single-record target as baseline; then again with idempotent creates (upserts by an
/// external-id field, so no create is stamped first), against the same baseline.
struct SyncUpBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "sync-up", abstract: "Sync up of locally created records.")

    @Option(help: "Records created locally.") var records = 10_000
    @Option(help: "Where LocalForce runs: child or in-process.") var server: ServerPlacement = .child

    func run() async throws {
        let folder = try SyncBench.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bench = try await SyncBench.start(accounts: 0, folder: folder, placement: server, mobileId: true)
        func createLocally(_ prefix: String) throws {
            for index in 0..<records {
                try bench.store.createLocally(
                    ["Name": .string("\(prefix) \(index)"), "Industry": "Energy"], objectType: "Account", in: "accounts")
            }
        }
        let options = SyncOptions(fieldlist: ["Name", "Industry"])
        try createLocally("Single")
        var requests = bench.client.requestCount
        let baselineSeconds = try await BenchReport.asyncTime {
            _ = try await bench.manager.syncUp(target: SingleRecordSyncUpTarget(), options: options, soupName: "accounts")
        }
        let baselineRequests = bench.client.requestCount - requests
        let targets = [
            ("sync-up", CollectionSyncUpTarget()),
            ("sync-up-idempotent", CollectionSyncUpTarget(idempotencyFieldName: SyncBench.mobileIdField)),
        ]
        for (scenario, target) in targets {
            try createLocally(scenario)
            bench.resetPeakMemory()
            requests = bench.client.requestCount
            var state: SyncState?
            let seconds = try await BenchReport.asyncTime {
                state = try await bench.manager.syncUp(target: target, options: options, soupName: "accounts")
            }
            guard state?.status == .done, state?.failedRecordCount == 0 else { throw BenchError("sync up failed: \(state?.error ?? "")") }
            BenchReport.throughput(
                scenario: scenario, records: records, seconds: seconds, baselineSeconds: baselineSeconds,
                extra: bench.memoryReport.merging([
                    "requests": .int(Int64(bench.client.requestCount - requests)),
                    "baseline_requests": .int(Int64(baselineRequests)), "baseline": "single-record target",
                ]) { $1 })
        }
        await bench.stop()
    }
}

/// `msync-bench ghosts`: ghost cleanup after 1% was deleted on the server; baseline: the SDK's
/// way (every remote id fetched, compared with every local id).
struct GhostsBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ghosts", abstract: "Ghost cleanup after server-side deletes.")

    @Option(help: "Accounts synced.") var records = 100_000
    @Option(help: "Where LocalForce runs: child or in-process.") var server: ServerPlacement = .child

    func run() async throws {
        let folder = try SyncBench.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bench = try await SyncBench.start(accounts: records, folder: folder, placement: server)
        let sync = try await bench.manager.syncDown(
            target: try SoqlSyncDownTarget(query: SyncBench.query), soupName: "accounts", name: "accounts")
        let deleted = max(1, records / 100)
        let ids = try await bench.client.query("SELECT Id FROM Account ORDER BY Name DESC LIMIT \(deleted)").records().compactMap {
            $0["Id"]?.stringValue
        }
        for start in stride(from: 0, to: ids.count, by: 200) {
            _ = try await bench.client.deleteRecords(Array(ids[start..<min(ids.count, start + 200)]))
        }

        // Baseline: all remote ids, all local ids, set difference (no deletes, to leave the ghosts for us).
        let baselineSeconds = try await BenchReport.asyncTime {
            var remote: Set<String> = []
            var page = try await bench.client.query("SELECT Id FROM Account")
            while true {
                for record in try page.records() { if let id = record["Id"]?.stringValue { remote.insert(id) } }
                guard let next = page.nextRecordsURL, !page.done else { break }
                page = try await bench.client.queryMore(next)
            }
            var local: [String] = []
            var index = 0
            while true {
                let rows = try await bench.store.query(
                    .all(soup: "accounts", selectPaths: ["Id"], orderPath: "Id", pageSize: 10_000), pageIndex: index)
                local += rows.compactMap { $0.arrayValue?.first?.stringValue }
                if rows.count < 10_000 { break }
                index += 1
            }
            let ghosts = local.filter { !remote.contains($0) }
            guard ghosts.count == deleted else { throw BenchError("baseline found \(ghosts.count) ghosts") }
        }
        bench.resetPeakMemory()
        let requests = bench.client.requestCount
        var removed = 0
        let seconds = try await BenchReport.asyncTime { removed = try await bench.manager.cleanResyncGhosts(id: sync.id) }
        guard removed == deleted else { throw BenchError("removed \(removed) ghosts, expected \(deleted)") }
        BenchReport.throughput(
            scenario: "ghosts", records: records, seconds: seconds, baselineSeconds: baselineSeconds,
            extra: bench.memoryReport.merging([
                "requests": .int(Int64(bench.client.requestCount - requests)),
                "ghosts": .int(Int64(deleted)), "baseline": "all remote ids vs all local ids",
            ]) { $1 })
        await bench.stop()
    }
}
