import ArgumentParser
import Foundation
import SmartStore

/// `msync-bench json`: parsing the benchmark's ~600-byte records into `JSONValue`s against
/// Foundation's `JSONSerialization` on the same bytes (the baseline), in the same run.
struct JSONBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "json", abstract: "JSON record parsing throughput.")

    @Option(help: "Records to parse per round.")
    var records = 20_000

    @Option(help: "Rounds; the fastest of each side is reported.")
    var rounds = 5

    func validate() throws {
        guard records > 0, rounds > 0 else { throw ValidationError("counts must be positive") }
    }

    func run() throws {
        let documents = BenchRecords.make(count: records).map { Data($0.jsonBytes) }
        var ours = Double.infinity
        var baseline = Double.infinity
        for _ in 0..<rounds {
            baseline = min(
                baseline,
                try BenchReport.time {
                    for document in documents { _ = try JSONSerialization.jsonObject(with: document) }
                })
            ours = min(
                ours,
                try BenchReport.time {
                    for document in documents { _ = try JSONValue(parsing: document) }
                })
        }
        let bytes = documents.reduce(0) { $0 + $1.count }
        BenchReport.throughput(
            scenario: "json-parse", records: records, seconds: ours, baselineSeconds: baseline,
            extra: [
                "record_bytes": .int(Int64(bytes / records)), "megabytes_per_second": BenchReport.rounded(Double(bytes) / ours / 1e6, 10),
            ])
    }
}
