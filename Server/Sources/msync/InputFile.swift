import ArgumentParser
import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The files a command reads (configs, schemas, keys) are checked before anything is opened or
/// created: reading a FIFO blocks for ever, a device never ends, a directory is a mistake.
/// Store and database paths are checked where they are opened (SmartStore, LocalForce).
enum InputFile {
    /// Throws a `ValidationError` naming `option` when `path` is given and is not a regular file
    /// (links are followed), or does not exist.
    static func check(_ path: String?, option: String) throws {
        guard let path else { return }
        var info = stat()
        guard stat(path, &info) == 0 else { throw ValidationError("\(option): no file at \(path)") }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw ValidationError("\(option): \(path) is not a regular file (a directory, a FIFO or a device)")
        }
    }
}
