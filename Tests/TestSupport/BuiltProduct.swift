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

    /// The executable `name` of the package under `package`; nil when it is not built.
    public static func executable(_ name: String, package: URL) -> URL? {
        folders(package: package).map { $0.appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Where ``executable(_:package:)`` looks for `name`, for a failure's message.
    public static func candidates(_ name: String, package: URL) -> String {
        folders(package: package).map { $0.appendingPathComponent(name).path }.joined(separator: " or ")
    }

    /// A class of this module, for `Bundle(for:)`.
    private final class Marker {}
}
