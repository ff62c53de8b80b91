import FastJSON
import Foundation
import SmartStore

/// SQLCipher 4's own ratio on the workload of `msync-bench store --encrypted`, measured in the
/// same run by `Server/scripts/bench/sqlcipher_ratio.py` (Python, PyPI's `sqlcipher3-binary`):
/// the rows of the plaintext store the benchmark wrote, written into a plaintext and an
/// encrypted SQLCipher database, then read with the same lookups and pages. Its lines are
/// printed as the benchmark's own, with the machine and build.
enum SQLCipherRatio {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/bench/sqlcipher_ratio.py")

    static func run(source: String, samples: Int, rowsPerTransaction: Int) throws {
        guard FileManager.default.fileExists(atPath: script.path) else {
            throw BenchError("cannot find \(script.path): run msync-bench from a clone of the repository, or pass --no-sqlcipher")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, source, String(samples), String(rowsPerTransaction)]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchError(
                "the SQLCipher comparison failed (\(process.terminationStatus)); it needs `pip install sqlcipher3-binary`, or pass --no-sqlcipher"
            )
        }
        for text in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            guard case .object(let members) = try JSONValue(parsing: Array(text.utf8)) else { continue }
            BenchReport.line(members)
        }
    }
}
