import ArgumentParser
@_spi(MSyncInternal) import FastJSON
import Foundation
import SmartStore

/// `msync-bench json`: parsing the benchmark's ~600-byte records into `JSONValue`s against
/// Foundation's `JSONSerialization` on the same bytes (the baseline), in the same run; and
/// the page scan of the bulk ingest (validation, records and six members of each found as byte
/// ranges) against parsing the same page into `JSONValue`s.
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
        try scanPage(bytes: bytes)
        BenchReport.throughput(
            scenario: "json-parse", records: records, seconds: ours, baselineSeconds: baseline,
            extra: [
                "record_bytes": .int(Int64(bytes / records)), "megabytes_per_second": BenchReport.rounded(Double(bytes) / ours / 1e6, 10),
            ])
    }

    /// `json-scan`: the bulk ingest's page scan against a full parse of the page.
    private func scanPage(bytes: Int) throws {
        let page = JSONValue.object(["totalSize": .int(Int64(records)), "records": .array(BenchRecords.make(count: records))]).jsonBytes
        let names = ["Id", "Name", "NumberOfEmployees", "LastModifiedDate", "_soupEntryId", "__local__"]
        var ours = Double.infinity
        var baseline = Double.infinity
        var found = 0
        for _ in 0..<rounds {
            baseline = min(baseline, try BenchReport.time { _ = try JSONValue(parsing: page) })
            ours = min(
                ours,
                BenchReport.time {
                    found = page.withUnsafeBufferPointer { JSONRecordScanner.records(in: $0, at: ["records"], names: names)?.count ?? 0 }
                })
        }
        guard found == records else { throw BenchError("the scan found \(found) records of \(records)") }
        BenchReport.throughput(
            scenario: "json-scan", records: records, seconds: ours, baselineSeconds: baseline,
            extra: ["megabytes_per_second": BenchReport.rounded(Double(page.count) / ours / 1e6, 10)])
    }
}
