import Foundation
import TestSupport
import Testing

/// The `msync` these tests run: the binary built beside the test bundle (this target depends on
/// it, so `swift build --build-tests` builds it with the tests, in the same configuration).
enum Msync {
    /// The server package's folder (`Server/`), whose `scripts/checks` some tests drive.
    static let serverPackage = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Where the build's products may be: beside the image holding these tests (found by the
    /// loader, so also when a runner `dlopen`s the `.xctest` bundle on macOS; on Linux the
    /// bundle is the test executable's folder), else `Server/.build/{debug,release}`.
    static var productFolders: [URL] {
        let image = Bundle(for: Marker.self).bundleURL
        let build = serverPackage.appendingPathComponent(".build")
        return [image, image.deletingLastPathComponent(), Bundle.main.bundleURL]
            + ["debug", "release"].map { build.appendingPathComponent($0) }
    }

    /// A class of this target, for `Bundle(for:)`.
    private final class Marker {}

    /// The built `msync`; fails the test when it is missing.
    static func binary() throws -> URL {
        let candidates = productFolders.map { $0.appendingPathComponent("msync") }
        return try #require(
            candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) },
            "msync is not built at \(candidates.map(\.path).joined(separator: " or "))")
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
