// msync-fuzz: coverage-guided fuzzing of the parsers and the request handler, one target per run,
// chosen by MSYNC_FUZZ_TARGET (json, soql, smartsql, request, cipherstore, csv, xml). libFuzzer provides main; its
// options and corpus folders are the command's arguments. Built only by scripts/fuzz.sh
// (MSYNC_FUZZ=1, --sanitize fuzzer).
import Foundation

/// The targets by name.
let fuzzTargets: [String: @Sendable () -> any FuzzTarget] = [
    "json": { JSONFuzzTarget() },
    "soql": { SOQLFuzzTarget() },
    "smartsql": { SmartSQLFuzzTarget() },
    "request": { RequestFuzzTarget() },
    "cipherstore": { CipherStoreFuzzTarget() },
    "csv": { CSVFuzzTarget() },
    "xml": { XMLFuzzTarget() },
]

/// The target of this run, made once before the first input (libFuzzer is single-threaded).
nonisolated(unsafe) private var currentTarget: (any FuzzTarget)?

/// libFuzzer's setup hook: picks the target named by MSYNC_FUZZ_TARGET.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(
    _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> Int32 {
    let name = ProcessInfo.processInfo.environment["MSYNC_FUZZ_TARGET"] ?? ""
    guard let make = fuzzTargets[name] else {
        FileHandle.standardError.write(
            Data("msync-fuzz: set MSYNC_FUZZ_TARGET to one of \(fuzzTargets.keys.sorted().joined(separator: ", "))\n".utf8))
        exit(2)
    }
    currentTarget = make()
    return 0
}

/// libFuzzer's callback: one input for the chosen target.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    currentTarget?.run(bytes)
    return 0
}
