import EncryptedSQLite
import Foundation
import GRDB
import GRDBSQLite

/// How a store uses the encrypting VFS: leases for keyed paths, connection preparation, and
/// SQLite's bare result codes turned into typed errors.
enum StoreEncryption {
    /// The page cache of the writing connection of an encrypted store by default, in KiB:
    /// large, so that a big transaction does not spill pages (each one encrypted) to the log
    /// before it commits.
    static let cacheKiB = 16384
    /// The page cache of a reading connection of an encrypted store by default, in KiB: pages
    /// it misses come from the store's shared cache (``StoreOptions/sharedCacheKiB``) first.
    static let readerCacheKiB = 4096

    /// A lease of `path` for `key`; `nil` for a plaintext store, after checking that this process
    /// does not have the path open with a key. An existing encrypted file is opened in the
    /// layout it has; a new one gets SQLite's header in plaintext when `plaintextHeader` says so.
    static func lease(
        path: String, key: StoreKey?, exclusive: Bool = false, sharedCacheKiB: Int = 0, plaintextHeader: Bool = false
    ) throws -> CipherLease? {
        guard let key else {
            if CipherVFS.isLeased(path: path) { throw SmartStoreError.keyRequired(path: path) }
            return nil
        }
        let layout = CipherLayout.ofDatabase(at: path) ?? (plaintextHeader ? .plaintextHeader : .saltHeader)
        let material = layout == .plaintextHeader ? try key.withPlaintextHeaderSalt().material : key.material
        do {
            let bytes = max(0, min(sharedCacheKiB, Int.max / 1024)) * 1024
            return try CipherVFS.lease(path: path, material: material, layout: layout, exclusive: exclusive, pageCacheBytes: bytes)
        } catch .keyConflict {
            throw exclusive ? SmartStoreError.storeInUse(path: path) : SmartStoreError.wrongKey(path: path)
        } catch {
            throw SmartStoreError.database("Cannot open store at \(path): \(error)")
        }
    }

    /// What a connection to the store at `path` opens: with a lease, a URI naming the
    /// encrypting VFS (see ``CipherVFS/uri(path:)``); without one, `path`, through SQLite's
    /// default VFS.
    static func location(of path: String, lease: CipherLease?) -> String {
        lease == nil ? path : CipherVFS.uri(path: path)
    }

    /// Prepares a new connection to an encrypted store: reserved bytes for the cipher in every
    /// page, SQLCipher's page size, and temporary files in memory (never on disk in the clear).
    static func prepare(_ db: Database, lease: CipherLease) throws {
        withExtendedLifetime(lease) {}
        // The page size first: setting it resets the reserved bytes SQLite is asked for.
        try db.execute(sql: "PRAGMA page_size = \(CipherFormat.pageSize)")
        try db.execute(sql: "PRAGMA temp_store = MEMORY")
        // The cache is set by the store's options: every page SQLite's cache misses is copied
        // from the shared page cache or decrypted and authenticated (HMAC-SHA512, the larger
        // cost), so by default an encrypted store's writer gets ``cacheKiB`` and its readers
        // ``readerCacheKiB`` instead of SQLite's 2 MiB (allocated as used).
        guard let connection = db.sqliteConnection, CipherVFS.prepare(connection: connection) == SQLITE_OK else {
            throw SmartStoreError.database("Cannot prepare the encrypted store connection")
        }
    }

    /// The error for a store that failed to open.
    static func openError(_ error: any Error, path: String, encrypted: Bool) -> any Error {
        if let typed = error as? SmartStoreError { return typed }
        guard let error = error as? DatabaseError else { return SmartStoreError.database("Cannot open store at \(path): \(error)") }
        if encrypted, let failure = failure(error, path: path) { return failure }
        // An encrypted file read without a key: NOTADB, or with a plaintext header (whose page 1
        // SQLite can parse) "unsupported file format".
        if !encrypted, error.resultCode == .SQLITE_NOTADB || error.resultCode == .SQLITE_ERROR, looksEncrypted(path) {
            return SmartStoreError.keyRequired(path: path)
        }
        return SmartStoreError.database("Cannot open store at \(path): \(error.message ?? error.description)")
    }

    /// The typed error for a database error on an encrypted store, if the VFS says why.
    static func failure(_ error: DatabaseError, path: String) -> SmartStoreError? {
        // Only errors the VFS can cause: a constraint or syntax error never takes its place.
        guard error.resultCode == .SQLITE_NOTADB || error.resultCode == .SQLITE_IOERR else { return nil }
        guard let failure = CipherVFS.takeFailure(path: path) else {
            return error.resultCode == .SQLITE_NOTADB ? .wrongKey(path: path) : nil
        }
        switch failure {
        case .wrongKey: return .wrongKey(path: path)
        case .plaintextDatabase: return .notEncrypted(path: path)
        case .corruptPage(let page, let file):
            let name =
                switch file {
                case .database: "the database"
                case .writeAheadLog: "the write-ahead log"
                case .journal: "the rollback journal"
                }
            return .corrupted(path: path, detail: "page \(page) of \(name) does not authenticate")
        case .missingReserve:
            return .database("The encrypted store at \(path) was written by a connection without reserved bytes; nothing was written")
        case .keyDerivation:
            return .invalidKey("The store key could not be derived")
        case .layoutMismatch(let found):
            let layout = found == .plaintextHeader ? "a plaintext header" : "its salt in its header"
            return .database("The encrypted store at \(path) changed its layout while open (\(layout) now)")
        }
    }

    /// Whether the file at `path` exists and is encrypted: it does not start with SQLite's
    /// header, or its header is in plaintext and leaves the cipher its reserved bytes.
    static func looksEncrypted(_ path: String) -> Bool {
        CipherLayout.ofDatabase(at: path) != nil
    }
}
