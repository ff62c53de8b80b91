import Foundation
import SmartStore

/// Measuring helpers and the JSON-lines report.
enum BenchReport {
    static func time(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    static func asyncTime(_ body: () async throws -> Void) async rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try await body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    /// Median of per-call durations, in microseconds.
    static func medianMicroseconds(samples: Int, _ body: (Int) throws -> Void) rethrows -> Double {
        var durations: [Double] = []
        durations.reserveCapacity(samples)
        for sample in 0..<samples {
            durations.append(try time { try body(sample) } * 1e6)
        }
        return median(durations)
    }

    /// The middle value (the upper one of an even count); `samples` is validated positive.
    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }

    /// The medians of two operations sampled in turn, the order swapped at every sample, so
    /// that neither gains from caches the other warmed (our call, then the baseline's).
    static func pairedMedianMicroseconds(samples: Int, _ ours: (Int) throws -> Void, _ baseline: (Int) throws -> Void) rethrows -> (
        ours: Double, baseline: Double
    ) {
        var (mine, theirs): ([Double], [Double]) = ([], [])
        for sample in 0..<samples {
            if sample % 2 == 0 {
                mine.append(try time { try ours(sample) } * 1e6)
                theirs.append(try time { try baseline(sample) } * 1e6)
            } else {
                theirs.append(try time { try baseline(sample) } * 1e6)
                mine.append(try time { try ours(sample) } * 1e6)
            }
        }
        return (median(mine), median(theirs))
    }

    static func rounded(_ value: Double, _ digits: Double = 1000) -> JSONValue {
        .double((value * digits).rounded() / digits)
    }

    static func throughput(scenario: String, records: Int, seconds: Double, baselineSeconds: Double, extra: [String: JSONValue] = [:]) {
        var line: [String: JSONValue] = [
            "scenario": .string(scenario), "records": .int(Int64(records)), "seconds": rounded(seconds),
            "records_per_second": .int(Int64(Double(records) / seconds)), "baseline_seconds": rounded(baselineSeconds),
            "baseline_records_per_second": .int(Int64(Double(records) / baselineSeconds)),
            "ratio": rounded(baselineSeconds / seconds),
        ]
        line.merge(extra) { _, new in new }
        emit(line)
    }

    static func latency(
        scenario: String, records: Int, samples: Int, medianMicroseconds: Double, baselineMedianMicroseconds: Double,
        extra: [String: JSONValue] = [:]
    ) {
        var line: [String: JSONValue] = [
            "scenario": .string(scenario), "records": .int(Int64(records)), "samples": .int(Int64(samples)),
            "median_us": rounded(medianMicroseconds, 10), "baseline_median_us": rounded(baselineMedianMicroseconds, 10),
            "ratio": rounded(baselineMedianMicroseconds / medianMicroseconds),
        ]
        line.merge(extra) { _, new in new }
        emit(line)
    }

    /// One report line with the given members.
    static func line(_ members: [String: JSONValue]) {
        emit(members)
    }

    private static func emit(_ measured: [String: JSONValue]) {
        var line = measured
        line["build"] = .string(BenchMachine.buildConfiguration)
        // Stable key order for readers; the values come from JSONValue's writer.
        let order = [
            "scenario", "records", "samples", "seconds", "records_per_second", "median_us", "baseline_seconds",
            "baseline_records_per_second", "baseline_median_us", "ratio",
        ]
        let keys = order.filter { line[$0] != nil } + line.keys.filter { !order.contains($0) }.sorted()
        let body = (keys.map { "\"\($0)\":\(line[$0]?.jsonString ?? "null")" } + ["\"machine\":\(BenchMachine.current.json)"])
            .joined(separator: ",")
        FileHandle.standardOutput.write(Data("{\(body)}\n".utf8))
    }
}
