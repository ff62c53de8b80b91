import EncryptedSQLite
import Foundation
import GRDB

extension SmartStore {
    /// Re-encrypts the store at `path` with `newKey` (SQLCipher's `PRAGMA rekey`).
    ///
    /// The store is copied page by page into a new file under the new key, which then replaces
    /// the old file in one rename: a crash at any point leaves either the old store or the new
    /// one, whole. The store must not be open.
    ///
    /// `plaintextHeader` moves the store to the other layout of page 1 (see
    /// ``StoreOptions/plaintextHeader``): true to keep SQLite's header in plaintext, as a store
    /// in an app-group container needs, false for SQLCipher's default; nil keeps the layout it has.
    ///
    /// - Throws: ``SmartStoreError/wrongKey(path:)`` when `oldKey` does not open it,
    ///   ``SmartStoreError/storeInUse(path:)`` when a connection of this process or another
    ///   has it open, ``SmartStoreError/invalidKey(_:)`` for a plaintext header with a passphrase.
    public static func changeKey(ofStoreAt path: String, from oldKey: StoreKey, to newKey: StoreKey, plaintextHeader: Bool? = nil) throws {
        let header = plaintextHeader ?? (CipherLayout.ofDatabase(at: path) == .plaintextHeader)
        try copyStore(at: path, key: oldKey, to: nil, key: newKey, plaintextHeader: header)
    }

    /// Encrypts the plaintext store at `path` with `key`, in place and crash-safe (as
    /// ``changeKey(ofStoreAt:from:to:plaintextHeader:)`` does). The store must not be open.
    /// `plaintextHeader` as ``StoreOptions/plaintextHeader`` says (nil: on for a raw key in an
    /// app-group container).
    ///
    /// - Throws: ``SmartStoreError/keyRequired(path:)`` when the store is already encrypted.
    public static func encrypt(storeAt path: String, with key: StoreKey, plaintextHeader: Bool? = nil) throws {
        let header = StoreOptions(plaintextHeader: plaintextHeader).usesPlaintextHeader(forStoreAt: path, key: key)
        try copyStore(at: path, key: nil, to: nil, key: key, plaintextHeader: header)
    }

    /// Writes a decrypted copy of the encrypted store at `path` to `destination`, a new file
    /// that plain SQLite opens. The store itself is not changed.
    ///
    /// - Throws: ``SmartStoreError/database(_:)`` when `destination` exists.
    public static func exportDecrypted(storeAt path: String, key: StoreKey, to destination: String) throws {
        try copyStore(at: path, key: key, to: destination, key: nil)
    }

    /// Copies the store at `path` (read with `sourceKey`) into `destination`, or into a
    /// temporary file that then replaces it, written with `targetKey`.
    private static func copyStore(
        at path: String, key sourceKey: StoreKey?, to destination: String?, key targetKey: StoreKey?, plaintextHeader: Bool = false
    ) throws {
        guard FileManager.default.fileExists(atPath: path) else { throw SmartStoreError.database("No store at \(path)") }
        try StoreFileKind.requireRegularFileOrNothing(at: path)
        if CipherVFS.isLeased(path: path) { throw SmartStoreError.storeInUse(path: path) }
        let target = destination ?? path + ".rewrite-" + UUID().uuidString
        // The target is made here, empty, or not at all (VACUUM INTO writes into an empty file):
        // what fails is removed, and never a file someone else made.
        guard createExclusively(target) else {
            throw SmartStoreError.database("Cannot export to \(target): the file exists or cannot be created")
        }
        var finished = false
        defer {
            if !finished { try? FileManager.default.removeItem(atPath: target) }
        }
        do {
            // Exclusive: no store of this process opens the path meanwhile.
            let sourceLease = try StoreEncryption.lease(path: path, key: sourceKey, exclusive: true)
            let targetLease = try StoreEncryption.lease(path: target, key: targetKey, exclusive: true, plaintextHeader: plaintextHeader)
            var configuration = Configuration()
            configuration.prepareDatabase { db in
                if let sourceLease { try StoreEncryption.prepare(db, lease: sourceLease) }
                // The copy keeps the source's page layout: encrypted, it needs the reserved bytes.
                if let targetLease { try StoreEncryption.prepare(db, lease: targetLease) }
            }
            // Through the encrypting VFS when either side is encrypted: `VACUUM INTO` writes the
            // target through the VFS the source was opened with.
            let queue = try DatabaseQueue(
                path: StoreEncryption.location(of: path, lease: sourceLease ?? targetLease), configuration: configuration)
            try queue.writeWithoutTransaction { db in
                // An exclusive lock, kept until the copy is made: it is refused while any other
                // connection, of this process or another, has the store open.
                try db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE")
                do {
                    try db.execute(sql: "BEGIN EXCLUSIVE")
                    try db.execute(sql: "COMMIT")
                } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
                    throw SmartStoreError.storeInUse(path: path)
                }
                try db.execute(sql: "VACUUM INTO ?", arguments: [target])
            }
            try queue.close()
            // Ended now, not when GRDB lets go of the configuration: the path may be opened
            // with the new key at once.
            sourceLease?.end()
            targetLease?.end()
        } catch let error as DatabaseError {
            throw StoreEncryption.openError(error, path: path, encrypted: sourceKey != nil)
        }
        try synchronize(target)
        if destination == nil {
            guard rename(target, path) == 0 else {
                throw SmartStoreError.database("Cannot replace \(path): \(String(cString: strerror(errno)))")
            }
            for suffix in ["-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            try synchronize((path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent)
        }
        finished = true
    }

    /// Flushes a file (or a directory's entries) to stable storage (`F_FULLFSYNC` on Apple platforms).
    private static func synchronize(_ path: String) throws {
        try Durability.synchronize(path: path)
    }
}

/// Creates an empty file at `path` (mode 0600), failing if anything is there already.
private func createExclusively(_ path: String) -> Bool {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
    guard descriptor >= 0 else { return false }
    return close(descriptor) == 0
}
