import Foundation
import TestSupport
import Testing

/// The `msync` these tests run: the binary built beside the test bundle (this target depends on
/// it, so `swift build --build-tests` builds it with the tests, in the same configuration).
enum Msync {
    /// The server package's folder (`Server/`), whose `scripts/checks` some tests drive.
    static let serverPackage = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The folder of the build's products: the test bundle's own.
    static var products: URL {
        #if os(macOS)
            for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
                return bundle.bundleURL.deletingLastPathComponent()
            }
        #endif
        return Bundle.main.bundleURL
    }

    /// The built `msync`; fails the test when it is missing.
    static func binary() throws -> URL {
        let binary = products.appendingPathComponent("msync")
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "msync is not built at \(binary.path)")
        return binary
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
