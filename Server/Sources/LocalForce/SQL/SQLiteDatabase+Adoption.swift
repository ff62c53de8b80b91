import Foundation
import GRDB

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension SQLiteDatabase {
    /// The tables a LocalForce database always has (its counters), whatever its schema.
    static let markerTable = "lf_counters"

    /// Whether this SQLite reads `file:` URIs as such (built with `SQLITE_USE_URI`, as Debian's
    /// and Apple's are).
    static let takesURIs: Bool = {
        let answer = try? DatabaseQueue().read { db in try Bool.fetchOne(db, sql: "SELECT sqlite_compileoption_used('USE_URI')") }
        return (answer ?? nil) ?? false
    }()

    /// Checks, before anything is written, that `path` may hold LocalForce's data: nothing there
    /// yet, an empty file, or a SQLite database LocalForce made. A directory, a FIFO or a device
    /// is refused (SQLite would block or fail on it), and so is a database holding tables of
    /// another program (a SmartStore store, an app's database): LocalForce would add its own
    /// tables to it.
    static func checkAdoptable(_ path: String) throws(DatabaseOpenError) {
        var info = stat()
        guard stat(path, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw DatabaseOpenError("\(path) is not a regular file (a directory, a FIFO or a device): give a SQLite file")
        }
        guard info.st_size > 0 else { return }
        let tables: [String]
        do {
            var configuration = Configuration()
            configuration.readonly = true
            // Immutable where SQLite takes URI filenames and no write-ahead log holds part of
            // the database: read as it is, without the -wal and -shm files a reader would
            // otherwise create. With a log (a program has it open, or crashed), a plain
            // read-only open, which reads the log too.
            var location = path
            let log = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? nil
            if takesURIs, (log ?? 0) == 0 {
                var unreserved = CharacterSet.alphanumerics.intersection(.init(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
                unreserved.insert(charactersIn: "/-_.~")
                let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
                location = "file://\(absolute.addingPercentEncoding(withAllowedCharacters: unreserved) ?? absolute)?immutable=1"
            }
            let queue = try DatabaseQueue(path: location, configuration: configuration)
            tables = try queue.read { db in
                try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            }
            try queue.close()
        } catch {
            throw DatabaseOpenError(
                "\(path) is not a SQLite database LocalForce can read: \((error as? DatabaseError)?.message ?? "\(error)")")
        }
        guard tables.isEmpty || tables.contains(markerTable) else {
            let shown = tables.prefix(5).joined(separator: ", ") + (tables.count > 5 ? ", …" : "")
            throw DatabaseOpenError(
                "\(path) is not a LocalForce database (it holds other tables: \(shown)); LocalForce does not write into it. Give a new file or one LocalForce made."
            )
        }
    }
}
