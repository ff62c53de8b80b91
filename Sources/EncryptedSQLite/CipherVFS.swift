import Foundation
import GRDBSQLite
import Locking

/// An SQLite VFS that stores registered databases in SQLCipher 4's format.
///
/// Installed once, over the platform's default VFS, under ``name``: a connection uses it only
/// when it is opened by the URI ``uri(path:)`` makes, so the databases of the rest of
/// the process (Core Data's, URLCache's) never pass through it. Where SQLite is built without
/// URI filenames it is installed as the default VFS instead (``isDefault``), and plain paths
/// reach it. A database path registered with a key has its main file, its WAL and its rollback
/// journal encrypted page by page (see ``CipherFormat``); every other file is opened by the
/// platform VFS itself, untouched. Connections to an encrypted database must be prepared with
/// ``prepare(connection:)`` before their first write.
package enum CipherVFS {
    /// The name the VFS is registered under.
    package static let name = "msync-cipher"

    /// Whether the VFS is the process's default VFS (SQLite built without URI filenames), so
    /// that a connection opened with a plain path uses it. Installs the VFS.
    package static var isDefault: Bool { Installation.shared?.isDefault ?? false }

    /// What to open for the database at `path` so that the connection uses this VFS: a `file:`
    /// URI naming it, or `path` itself where the VFS is the default (``isDefault``).
    package static func uri(path: String) -> String {
        isDefault ? path : plainURI(path: path, parameters: [(name: "vfs", value: name)])
    }

    /// A `file:` URI for `path` with `parameters` (a `vfs` parameter among them names the VFS;
    /// without one, the default). Only for an SQLite that understands URIs.
    /// Every byte SQLite's URI parser gives a meaning to (`%`, `?`, `#`, `&`, `=`) is
    /// percent-encoded, and an absolute path gets an empty authority, so any path survives.
    package static func plainURI(path: String, parameters: [(name: String, value: String)]) -> String {
        let prefix = path.hasPrefix("/") ? "file://" : "file:"
        let query = parameters.map { percentEncoded($0.name) + "=" + percentEncoded($0.value) }.joined(separator: "&")
        return prefix + percentEncoded(path) + (query.isEmpty ? "" : "?" + query)
    }

    private static func percentEncoded(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "/"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                encoded.unicodeScalars.append("%")
                encoded.unicodeScalars.append(hexDigits[Int(byte >> 4)])
                encoded.unicodeScalars.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return encoded
    }

    private static let hexDigits = Array("0123456789ABCDEF".unicodeScalars)

    /// Registers `path` as encrypted with `material`, installing the VFS on first use. Every
    /// connection opened to the path while the returned lease lives reads and writes it
    /// encrypted; several leases with the same key share the registration, and with it a cache
    /// of decrypted pages (see ``PageCache``) bounded by the largest `pageCacheBytes` any of them
    /// asked for.
    ///
    /// - Throws: ``CipherVFSError/keyConflict`` when the path is leased with another key (or
    ///   leased at all, with `exclusive`).
    /// With ``CipherLayout/plaintextHeader`` the material must carry the salt
    /// (``KeyMaterial/rawWithSalt(key:salt:)``): page 1 has no room for it.
    ///
    /// - Throws: ``CipherVFSError/saltRequired`` for a plaintext header without a salt.
    package static func lease(
        path: String, material: KeyMaterial, layout: CipherLayout = .saltHeader, exclusive: Bool = false, pageCacheBytes: Int = 0
    ) throws(CipherVFSError) -> CipherLease {
        guard let installation = Installation.shared else { throw .notInstalled }
        guard layout == .saltHeader || material.fixedSalt != nil else { throw .saltRequired }
        let full = try fullPathname(path, installation: installation)
        let leased = registrations.withLock { registrations in
            if let existing = registrations[full] {
                guard !exclusive, existing.registration.material == material, existing.registration.layout == layout else {
                    return false
                }
                existing.registration.pages.allow(bytes: pageCacheBytes)
                registrations[full] = (existing.registration, existing.leases + 1)
            } else {
                registrations[full] = (CipherRegistration(material: material, layout: layout, pageCacheBytes: pageCacheBytes), 1)
            }
            return true
        }
        guard leased else { throw .keyConflict }
        return CipherLease(path: full)
    }

    /// Ends one lease of `fullPath`; the last one forgets the key.
    static func release(fullPath: String) {
        registrations.withLock { registrations in
            guard let existing = registrations[fullPath] else { return }
            registrations[fullPath] = existing.leases > 1 ? (existing.registration, existing.leases - 1) : nil
        }
    }

    /// Whether `path` is leased as encrypted.
    package static func isLeased(path: String) -> Bool {
        guard let installation = Installation.shared, let full = try? fullPathname(path, installation: installation) else { return false }
        return registrations.withLock { $0[full] != nil }
    }

    /// Hits, misses and pages held of the shared page cache of `path` (zeros when it is not leased).
    package static func pageCacheStatistics(path: String) -> (hits: Int, misses: Int, pages: Int) {
        guard let installation = Installation.shared, let full = try? fullPathname(path, installation: installation) else {
            return (0, 0, 0)
        }
        return registrations.withLock { $0[full] }?.registration.pages.statistics ?? (0, 0, 0)
    }

    /// Drops the decrypted pages cached for `path` (memory pressure, an app in the background).
    package static func releasePageCache(path: String) {
        guard let installation = Installation.shared, let full = try? fullPathname(path, installation: installation) else { return }
        registrations.withLock { $0[full] }?.registration.pages.removeAll()
    }

    /// The last failure met on the files of `path`, forgotten once taken.
    package static func takeFailure(path: String) -> CipherFailure? {
        guard let installation = Installation.shared, let full = try? fullPathname(path, installation: installation) else { return nil }
        return registrations.withLock { $0[full] }?.registration.takeFailure()
    }

    /// Prepares a connection to an encrypted database: SQLite keeps ``CipherFormat/reserveSize``
    /// bytes free at the end of every page of a database it creates (and of one `VACUUM` or
    /// `VACUUM INTO` writes). Set `PRAGMA page_size = 4096` before (it resets the request) and
    /// `PRAGMA temp_store = MEMORY`.
    ///
    /// - Returns: SQLite's result code.
    package static func prepare(connection: OpaquePointer) -> Int32 {
        var reserve = Int32(CipherFormat.reserveSize)
        return sqlite3_file_control(connection, "main", SQLITE_FCNTL_RESERVE_BYTES, &reserve)
    }

    static let registrations = Locked([String: (registration: CipherRegistration, leases: Int)]())

    /// The registration that covers a file SQLite opens, found through the database's path.
    static func registration(forFile name: String, kind: CipherFileKind) -> CipherRegistration? {
        let database: Substring
        switch kind {
        case .database: database = Substring(name)
        case .writeAheadLog:
            guard name.hasSuffix("-wal") else { return nil }
            database = name.dropLast(4)
        case .journal:
            guard name.hasSuffix("-journal") else { return nil }
            database = name.dropLast(8)
        }
        return registrations.withLock { $0[String(database)]?.registration }
    }

    private static func fullPathname(_ path: String, installation: Installation) throws(CipherVFSError) -> String {
        let base = installation.base
        guard let resolve = base.pointee.xFullPathname else { throw .notInstalled }
        let capacity = Int(max(base.pointee.mxPathname, 512)) + 1
        var buffer = [CChar](repeating: 0, count: capacity)
        let rc = resolve(base, path, Int32(capacity), &buffer)
        guard rc == SQLITE_OK || rc == ResultCode.okSymlink else { throw .invalidPath(path) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Why a path cannot be registered with the VFS.
package enum CipherVFSError: Error, Equatable {
    /// SQLite has no default VFS to build on.
    case notInstalled
    /// SQLite cannot resolve the path.
    case invalidPath(String)
    /// The path is already open with another key in this process (or at all, for an exclusive
    /// lease).
    case keyConflict
    /// A PBKDF2 iteration count outside 1...4,294,967,295.
    case invalidIterations(Int)
    /// A plaintext header was asked for with key material that does not carry the salt.
    case saltRequired
}

/// Keeps a path registered with the VFS until it ends or is deinitialised (see
/// ``CipherVFS/lease(path:material:)``).
package final class CipherLease: Sendable {
    /// The path as SQLite names it.
    package let path: String
    private let ended = Locked(false)

    init(path: String) {
        self.path = path
    }

    /// Ends the lease now (once): call it after the connections that needed it are closed.
    package func end() {
        let first = ended.withLock { ended in
            defer { ended = true }
            return !ended
        }
        if first { CipherVFS.release(fullPath: path) }
    }

    deinit {
        end()
    }
}
