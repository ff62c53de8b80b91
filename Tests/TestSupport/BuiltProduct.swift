public import Foundation

/// An executable the package builds, found where the build put it: beside the image holding
/// the tests (the test target depends on the executable, so `swift build --build-tests` builds
/// it in the same configuration), else under the package's `.build/{debug,release}`.
public enum BuiltProduct {
    /// The folders a product may be in, for the package whose `.build` is under `package`.
    ///
    /// The image holding this code is found by the loader (`Bundle(for:)`): the `.xctest`
    /// bundle on macOS, also when a runner `dlopen`s it; on Linux, the test executable's folder.
    public static func folders(package: URL) -> [URL] {
        let image = Bundle(for: Marker.self).bundleURL
        let build = package.appendingPathComponent(".build")
        return [image, image.deletingLastPathComponent(), Bundle.main.bundleURL]
            + ["debug", "release"].map { build.appendingPathComponent($0) }
    }

    /// The executable `name` of the package under `package`.
    ///
    /// - Throws: ``Missing``, naming every place looked at, when it is not built.
    public static func executable(_ name: String, package: URL) throws -> URL {
        let candidates = folders(package: package).map { $0.appendingPathComponent(name) }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw Missing(description: "\(name) is not built at \(candidates.map(\.path).joined(separator: " or "))")
        }
        return found
    }

    /// An executable that is not built.
    public struct Missing: Error, CustomStringConvertible {
        /// Which, and where it was looked for.
        public let description: String
    }

    /// A class of this module, for `Bundle(for:)`.
    private final class Marker {}
}
