import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Flushing files to stable storage. On Apple platforms `fsync` only hands the data to the
/// drive, which may still reorder or lose it on power loss: `F_FULLFSYNC` asks the drive itself
/// (falling back to `fsync` where the file system refuses it).
enum Durability {
    /// Flushes an open file (or a directory's entries); 0 on success, as `fsync`.
    static func synchronize(descriptor: Int32) -> Int32 {
        #if canImport(Darwin)
            if fcntl(descriptor, F_FULLFSYNC) == 0 { return 0 }
        #endif
        return fsync(descriptor)
    }

    /// Flushes the file or directory at `path`.
    static func synchronize(path: String) throws {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw SmartStoreError.database("Cannot open \(path)") }
        defer { close(descriptor) }
        guard synchronize(descriptor: descriptor) == 0 else { throw SmartStoreError.database("Cannot flush \(path) to disk") }
    }
}
