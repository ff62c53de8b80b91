import ArgumentParser
import FastJSON
import Foundation
import MobileSync
import NIOConcurrencyHelpers
import SalesforceREST
import SmartStore

/// `msync-bench live`: writers on the server and one live client; each write is timed from
/// its commit (its answer) to the store, against a client that resyncs every second (the
/// SDK's way: it only polls).
struct LiveBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "live", abstract: "Server writes reaching a live sync's store: latency, throughput, memory.")

    @Option(help: "Write rates to measure, writes per second.") var rates: [Int] = [100, 1000]
    @Option(help: "Seconds each rate runs.") var seconds = 20
    @Option(help: "Concurrent writers.") var writers = 8
    @Option(help: "Seconds of a steady 100 writes/s run sampling both processes' memory (0: none).") var soakSeconds = 0

    func run() async throws {
        let folder = try SyncBench.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Each write takes an account of its own: the baseline's, every rate's and the soak's.
        let accounts = ((rates.min() ?? 100) + rates.reduce(0, +)) * seconds + 100 * soakSeconds + 1_000
        let bench = try await SyncBench.start(accounts: accounts, folder: folder, placement: .child)
        defer { Task { await bench.stop() } }
        // No late-commit window: the baseline's resyncs are the SDK's (the window would read the
        // freshly seeded org again in full at every poll).
        let target = try SoqlSyncDownTarget(query: SyncBench.query, lateCommitWindowMilliseconds: 0)
        try await bench.manager.syncDown(target: target, soupName: "accounts", name: "accounts")
        let ids = try await bench.store.query(.all(soup: "accounts", orderPath: "Id", pageSize: accounts)).compactMap {
            $0["Id"]?.stringValue
        }
        let pool = IdPool(ids)
        let writerClient = RestClient(instanceURL: bench.baseURL, tokenProvider: StaticAccessToken(SyncBench.token))

        // The baseline first: a resync every second, at the lowest rate.
        let baselineRate = rates.min() ?? 100
        let baseline = try await measurePolling(bench, pool: pool, writer: writerClient, rate: baselineRate)

        let arrivals = Arrivals()
        let changes = await bench.manager.liveChanges()
        let listener = Task { for await change in changes where change.outcome == .applied { arrivals.arrived(change.recordIds) } }
        defer { listener.cancel() }
        try await bench.manager.startLiveSync(named: "accounts")
        while try await bench.manager.syncStatus(named: "accounts")?.live?.status != .live { try await Task.sleep(for: .milliseconds(50)) }
        for rate in rates.sorted() {
            arrivals.reset()
            let writes = try await write(rate: rate, seconds: seconds, pool: pool, writer: writerClient, arrivals: arrivals)
            let drain = await arrivals.waitForAll(writes, timeout: .seconds(60))
            let latencies = arrivals.latencies()
            var line: [String: JSONValue] = [
                "scenario": .string("live-\(rate)-writes-per-second"), "records": .int(Int64(writes)),
                "seconds": .int(Int64(seconds)), "writers": .int(Int64(writers)),
                "writes_per_second": BenchReport.rounded(Double(writes) / Double(seconds), 10),
                "applied": .int(Int64(latencies.count)), "drain_ms_after_last_write": BenchReport.rounded(drain * 1000, 1),
                "events_per_second": BenchReport.rounded(Double(latencies.count) / (Double(seconds) + drain), 10),
                "p50_ms": Self.percentile(latencies, 0.50), "p95_ms": Self.percentile(latencies, 0.95),
                "p99_ms": Self.percentile(latencies, 0.99),
                "baseline": .string("a resync every second (polling, as the SDK does: no late-commit window) at \(baselineRate) writes/s"),
                "baseline_p50_ms": Self.percentile(baseline, 0.50), "baseline_p95_ms": Self.percentile(baseline, 0.95),
            ]
            if let ours = Self.value(latencies, 0.95), let theirs = Self.value(baseline, 0.95), ours > 0 {
                line["ratio"] = BenchReport.rounded(theirs / ours)
            }
            line.merge(bench.memoryReport) { _, new in new }
            BenchReport.line(line)
        }
        if soakSeconds > 0 { try await soak(bench, pool: pool, writer: writerClient, arrivals: arrivals) }
        await bench.manager.stopLiveSync(id: try bench.manager.syncStatus(named: "accounts")?.id ?? 0)
    }

    /// Writes at `rate` for `seconds` (open loop: each writer keeps its schedule); returns how many were written.
    private func write(rate: Int, seconds: Int, pool: IdPool, writer: RestClient, arrivals: Arrivals?) async throws -> Int {
        let perWriter = Duration.seconds(Double(writers) / Double(max(1, rate)))
        let end = ContinuousClock.now + .seconds(seconds)
        return try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<writers {
                group.addTask {
                    var next = ContinuousClock.now + perWriter * (Double(index) / Double(writers))
                    var written = 0
                    while next < end {
                        try await Task.sleep(until: next, clock: .continuous)
                        next += perWriter
                        guard let id = pool.next() else { break }
                        try await writer.update("Account", id: id, fields: ["Name": .string("Live \(id) \(written)")])
                        arrivals?.committed(id)
                        written += 1
                    }
                    return written
                }
            }
            return try await group.reduce(0, +)
        }
    }

    /// Latencies (ms) of a client resyncing every second: a write is in the store when the
    /// first resync that started after its commit ends.
    private func measurePolling(_ bench: SyncBench, pool: IdPool, writer: RestClient, rate: Int) async throws -> [Double] {
        let commits = Arrivals()
        let polling = Task {
            var latencies: [Double] = []
            while !Task.isCancelled {
                let started = ContinuousClock.now
                _ = try await bench.manager.reSync(named: "accounts")
                latencies += commits.takeCommitted(before: started).map { ($0.duration(to: .now)).milliseconds }
                try? await Task.sleep(until: started + .seconds(1), clock: .continuous)
            }
            return latencies
        }
        _ = try await write(rate: rate, seconds: seconds, pool: pool, writer: writer, arrivals: commits)
        try await Task.sleep(for: .seconds(2.5))
        polling.cancel()
        return try await polling.value
    }

    /// A steady 100 writes/s for ``soakSeconds``, sampling both processes' resident memory.
    private func soak(_ bench: SyncBench, pool: IdPool, writer: RestClient, arrivals: Arrivals) async throws {
        arrivals.reset()
        var samples: [(client: Double, server: Double)] = []
        let sampling = Task {
            var taken: [(client: Double, server: Double)] = []
            while !Task.isCancelled {
                taken.append((ResidentMemory.megabytes(), bench.serverResidentMegabytes))
                try? await Task.sleep(for: .seconds(30))
            }
            return taken
        }
        let writes = try await write(rate: 100, seconds: soakSeconds, pool: pool, writer: writer, arrivals: arrivals)
        _ = await arrivals.waitForAll(writes, timeout: .seconds(60))
        sampling.cancel()
        samples = await sampling.value
        samples.append((ResidentMemory.megabytes(), bench.serverResidentMegabytes))
        let latencies = arrivals.latencies()
        let first = samples.first ?? (0, 0)
        let last = samples.last ?? (0, 0)
        BenchReport.line([
            "scenario": .string("live-soak-100-writes-per-second"), "records": .int(Int64(writes)), "seconds": .int(Int64(soakSeconds)),
            "p95_ms": Self.percentile(latencies, 0.95), "p99_ms": Self.percentile(latencies, 0.99),
            "client_rss_mb_first": .double(first.client), "client_rss_mb_last": .double(last.client),
            "client_rss_mb_max": .double(samples.map(\.client).max() ?? 0), "server_rss_mb_first": .double(first.server),
            "server_rss_mb_last": .double(last.server), "server_rss_mb_max": .double(samples.map(\.server).max() ?? 0),
            "baseline": .string("the first sample, as the soak starts (ratio: last / first client RSS)"),
            "ratio": BenchReport.rounded(first.client > 0 ? last.client / first.client : 0),
        ])
    }

    private static func value(_ values: [Double], _ quantile: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * quantile).rounded()))]
    }

    private static func percentile(_ values: [Double], _ quantile: Double) -> JSONValue {
        value(values, quantile).map { BenchReport.rounded($0, 10) } ?? .null
    }
}

/// Ids handed to writers, each once.
final class IdPool: Sendable {
    private let state: NIOLockedValueBox<(ids: [String], next: Int)>
    init(_ ids: [String]) { state = NIOLockedValueBox((ids.shuffled(), 0)) }
    func next() -> String? {
        state.withLockedValue { state in
            guard state.next < state.ids.count else { return nil }
            defer { state.next += 1 }
            return state.ids[state.next]
        }
    }
}

/// When each write committed and when it reached the store.
final class Arrivals: Sendable {
    private let state = NIOLockedValueBox<(committed: [String: ContinuousClock.Instant], arrived: [String: ContinuousClock.Instant])>(
        ([:], [:]))

    func reset() { state.withLockedValue { $0 = ([:], [:]) } }
    func committed(_ id: String) { state.withLockedValue { $0.committed[id] = .now } }
    func arrived(_ ids: [String]) {
        let now = ContinuousClock.now
        state.withLockedValue { state in for id in ids where state.arrived[id] == nil { state.arrived[id] = now } }
    }

    /// Commit-to-store times (ms) of the writes that arrived (an event may beat its write's
    /// answer to the client: that counts as 0).
    func latencies() -> [Double] {
        state.withLockedValue { state in
            state.committed.compactMap { id, committed in state.arrived[id].map { max(0, committed.duration(to: $0).milliseconds) } }
        }
    }

    /// The commit times of writes committed before `instant`, removed.
    func takeCommitted(before instant: ContinuousClock.Instant) -> [ContinuousClock.Instant] {
        state.withLockedValue { state in
            let taken = state.committed.filter { $0.value < instant }
            for id in taken.keys { state.committed[id] = nil }
            return Array(taken.values)
        }
    }

    /// Waits until `count` committed writes arrived; returns the seconds it waited.
    func waitForAll(_ count: Int, timeout: Duration) async -> Double {
        let started = ContinuousClock.now
        while started.duration(to: .now) < timeout {
            let done = state.withLockedValue { state in state.committed.keys.filter { state.arrived[$0] != nil }.count >= count }
            if done { break }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return started.duration(to: .now).seconds
    }
}

/// Resident memory now (Linux `/proc`), in MB.
enum ResidentMemory {
    static func megabytes(statusFile: String = "/proc/self/status") -> Double {
        guard let status = try? String(contentsOfFile: statusFile, encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let kilobytes = line.split(separator: " ").compactMap { Double($0) }.first ?? 0
            return (kilobytes / 1024 * 10).rounded() / 10
        }
        return 0
    }
}

extension Duration {
    var milliseconds: Double { seconds * 1000 }
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
