import Foundation
import TestSupport
import Testing

/// The `msync` these tests run: the binary built beside the test bundle (see ``BuiltProduct``).
enum Msync {
    /// The server package's folder (`Server/`), whose `scripts/checks` some tests drive.
    static let serverPackage = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The built `msync`; fails the test when it is missing.
    static func binary() throws -> URL {
        try BuiltProduct.executable("msync", package: serverPackage)
    }

    /// Runs msync to its end (standard output and error together), terminated after `timeout`
    /// so that a hang fails the test (status 15) instead of the run.
    static func run(_ arguments: [String], environment: [String: String]? = nil, timeout: Duration = .seconds(300)) async throws
        -> (status: Int32, output: String)
    {
        try await ChildProcess.run(try binary(), arguments, environment: environment, timeout: timeout)
    }

    /// A new empty folder under the temporary directory.
    static func folder(_ prefix: String = "msync-cli") throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }
}
