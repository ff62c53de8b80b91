import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What a store path names, before SQLite opens it: SQLite would block for ever on a FIFO and
/// read a device without end, so a store opens only a regular file (or a link to one), or
/// creates one where nothing is.
enum StoreFileKind {
    /// Throws ``SmartStoreError/database(_:)`` when something other than a regular file is at
    /// `path` (links are followed).
    static func requireRegularFileOrNothing(at path: String) throws(SmartStoreError) {
        var info = stat()
        guard stat(path, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw .database("\(path) is not a regular file (a directory, a FIFO or a device): a store is a file")
        }
    }
}
