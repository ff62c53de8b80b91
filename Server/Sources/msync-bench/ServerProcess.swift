import ArgumentParser
import Foundation
import LocalForce
import LocalForceHTTP
import LocalForcePostgres

/// Where the sync benchmarks run LocalForce.
enum ServerPlacement: String, ExpressibleByArgument, CaseIterable {
    /// A child process: `peak_rss_mb` is the client's alone (the default).
    case child
    /// This process: less overhead, but the server's memory counts in `peak_rss_mb`.
    case inProcess = "in-process"
}

/// LocalForce in a child process (this executable's hidden `serve-org` command) on an
/// already seeded database file.
final class ServerProcess: Sendable {
    let baseURL: URL
    private let child: Child
    private var process: Process { child.process }

    /// The child. Foundation marks `Process` `Sendable` on Linux and only in recent Apple SDKs;
    /// what is called on it here (`processIdentifier`, `terminate`, `waitUntilExit`) is safe
    /// from any thread.
    private struct Child: @unchecked Sendable {
        let process: Process
    }

    private init(baseURL: URL, process: Process) {
        self.baseURL = baseURL
        self.child = Child(process: process)
    }

    static func start(database: String, token: String, accounts: Int, mobileId: Bool = false) async throws -> ServerProcess {
        guard let executable = Bundle.main.executableURL else { throw BenchError("cannot locate msync-bench itself") }
        let process = Process()
        process.executableURL = executable
        process.arguments =
            ["serve-org", "--database", database, "--token", token, "--accounts", String(accounts)] + (mobileId ? ["--mobile-id"] : [])
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let handle = output.fileHandleForReading
        // Blocking reads happen on a Dispatch thread, never on Swift's cooperative pool.
        let line: String = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var bytes: [UInt8] = []
                while !bytes.contains(UInt8(ascii: "\n")) {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    bytes += chunk
                }
                continuation.resume(returning: String(decoding: bytes, as: UTF8.self))
            }
        }
        guard let text = line.split(separator: " ").last.map({ $0.trimmingCharacters(in: .whitespacesAndNewlines) }),
            line.hasPrefix("LocalForce listening on "), let url = URL(string: text)
        else {
            process.terminate()
            throw BenchError("the server process did not start: \(line)")
        }
        return ServerProcess(baseURL: url, process: process)
    }

    /// Resets the child's peak resident memory (Linux `/proc`).
    func resetPeakMemory() {
        try? "5".write(toFile: "/proc/\(process.processIdentifier)/clear_refs", atomically: false, encoding: .utf8)
    }

    /// The child's peak resident memory in MB (0 when unavailable).
    var peakMemoryMegabytes: Double { PeakMemory.megabytes(statusFile: "/proc/\(process.processIdentifier)/status") }

    /// The child's resident memory now in MB (0 when unavailable).
    var residentMegabytes: Double { ResidentMemory.megabytes(statusFile: "/proc/\(process.processIdentifier)/status") }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}

/// `msync-bench serve-org`: serves a LocalForce database for the benchmarks (not listed).
struct ServeOrgCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve-org", abstract: "LocalForce for the benchmarks.", shouldDisplay: false)

    @Option(help: "A SQLite file or a postgres:// URL.") var database: String
    @Option(help: "The bearer token.") var token: String
    @Option(help: "Accounts to insert first.") var accounts = 0
    @Flag(help: "Give Account the external-id field idempotent creates upsert by.") var mobileId = false

    func run() async throws {
        // Ends with the benchmark that started it, whichever way that one ends (a failed
        // scenario throws past its stop()): an orphan gets another parent (init or a subreaper).
        let parent = getppid()
        Thread.detachNewThread {
            while getppid() == parent { sleep(1) }
            Foundation.exit(0)
        }
        let localForce = try await LocalForce(
            schema: try SyncBench.schema(mobileId: mobileId), database: try await DatabaseLocation.open(database, connections: 16),
            token: token)
        try await SyncBench.seed(localForce, accounts: accounts)
        let server = try await LocalForceServer.start(localForce)
        FileHandle.standardOutput.write(Data("LocalForce listening on \(server.baseURL.absoluteString)\n".utf8))
        try await server.wait()
    }
}
