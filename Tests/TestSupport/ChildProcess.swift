public import Foundation

/// Runs a child process and collects its output on a Dispatch thread: blocking reads must not
/// occupy Swift's cooperative pool, which the in-process servers the child talks to need.
public enum ChildProcess {
    /// Runs `executable` to its end and returns its exit status and output. With `timeout`, a
    /// process still running then is terminated (its status says so), so a hang fails a test
    /// instead of the whole run.
    public static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
        timeout: Duration? = nil
    ) async throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        if let timeout {
            let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
                if process.isRunning { process.terminate() }
            }
        }
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: (process.terminationStatus, String(decoding: data, as: UTF8.self)))
            }
        }
    }

    /// Reads from a pipe until `done` says the text so far is enough (on a Dispatch thread).
    public static func read(_ handle: FileHandle, until done: @escaping @Sendable (String) -> Bool) async -> String {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var text = ""
                while !done(text) {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    text += String(decoding: chunk, as: UTF8.self)
                }
                continuation.resume(returning: text)
            }
        }
    }
}
