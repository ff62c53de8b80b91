import EncryptedSQLite
import Foundation
import GRDB
import GRDBSQLite
import Testing

@testable import SmartStore

/// The encrypting VFS is registered under its own name, not as the process's default: encrypted
/// stores name it in their URI, and every other database of the process (plaintext stores,
/// plain GRDB, the app's Core Data) is opened by the platform's VFS without passing through it.
@Suite struct VFSRegistrationTests {
    /// The name of the VFS a connection was opened with.
    static func vfsName(_ db: Database) -> String? {
        guard let connection = db.sqliteConnection else { return nil }
        var vfs: UnsafeMutablePointer<sqlite3_vfs>?
        guard sqlite3_file_control(connection, "main", SQLITE_FCNTL_VFS_POINTER, &vfs) == SQLITE_OK, let name = vfs?.pointee.zName
        else { return nil }
        return String(cString: name)
    }

    /// The VFS of the writer, a pool reader and a plain reader of `store`.
    static func vfsNames(_ store: SmartStore) throws -> [String?] {
        [
            try store.write { db in Self.vfsName(db) },
            try store.read { db in Self.vfsName(db) },
            try store.readSingleStatement { db in Self.vfsName(db) },
        ]
    }

    @Test func plaintextDatabasesNeverReachTheEncryptingVFS() throws {
        let directory = TemporaryDirectory()
        let encrypted = try SmartStore(path: directory.path("encrypted.sqlite"), key: EncryptedStoreTests.key)
        try EncryptedStoreTests.exercise(encrypted)
        // This SQLite understands URIs (Debian's and Apple's are built with SQLITE_USE_URI), so
        // the VFS is installed under its name only.
        #expect(sqlite3_compileoption_used("USE_URI") == 1)
        #expect(!CipherVFS.isDefault)
        let platform = String(cString: try #require(sqlite3_vfs_find(nil)?.pointee.zName))
        #expect(platform != CipherVFS.name)
        #expect(sqlite3_vfs_find(CipherVFS.name) != nil)
        #expect(try Self.vfsNames(encrypted) == [CipherVFS.name, CipherVFS.name, CipherVFS.name])
        // A plaintext store, a read-only one and plain GRDB, while the encrypted store is open.
        let plain = try SmartStore(path: directory.path("plain.sqlite"))
        try EncryptedStoreTests.exercise(plain)
        #expect(try Self.vfsNames(plain) == [platform, platform, platform])
        let queue = try DatabaseQueue(path: directory.path("grdb.sqlite"))
        #expect(try queue.read { db in Self.vfsName(db) } == platform)
        try plain.close()
        let readOnly = try SmartStore(readOnlyAt: directory.path("plain.sqlite"))
        #expect(try readOnly.read { db in Self.vfsName(db) } == platform)
        // The encrypted store read-only names the VFS too, and reads what was written.
        try encrypted.close()
        let encryptedReadOnly = try SmartStore(readOnlyAt: directory.path("encrypted.sqlite"), key: EncryptedStoreTests.key)
        #expect(try encryptedReadOnly.read { db in Self.vfsName(db) } == CipherVFS.name)
        try EncryptedStoreTests.verify(encryptedReadOnly)
    }

    /// Paths with every character SQLite's URI parser gives a meaning to: the store is at that
    /// exact path, encrypted, and rekeys, exports and reopens there.
    @Test func anyPathSurvivesTheURI() throws {
        let directory = TemporaryDirectory()
        let folder = directory.path("a?b#c%41d e&f=g é")
        let path = folder + "/store %3F?x=1#y.sqlite"
        do {
            let store = try SmartStore(path: path, key: EncryptedStoreTests.key)
            try EncryptedStoreTests.exercise(store)
            try store.close()
        }
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(!(try EncryptedStoreTests.fileContains(path, EncryptedStoreTests.marker)))
        let newKey = StoreKey(sqlcipherKey: "another passphrase")
        try SmartStore.changeKey(ofStoreAt: path, from: EncryptedStoreTests.key, to: newKey)
        let reopened = try SmartStore(path: path, key: newKey)
        try EncryptedStoreTests.verify(reopened)
        try reopened.close()
        try SmartStore.exportDecrypted(storeAt: path, key: newKey, to: folder + "/plain #2.sqlite")
        try EncryptedStoreTests.verify(try SmartStore(path: folder + "/plain #2.sqlite"))
        // Nothing was made anywhere but at the paths given (SQLite's own -wal/-shm beside them).
        let made = try FileManager.default.contentsOfDirectory(atPath: folder).filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }
        #expect(
            Set(made).isSubset(of: ["store %3F?x=1#y.sqlite", "store %3F?x=1#y.sqlite-locks", "plain #2.sqlite", "plain #2.sqlite-locks"]))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).count == 1)
    }

    @Test func uriEncoding() {
        #expect(
            CipherVFS.plainURI(path: "/a b/c?d#e%f", parameters: [(name: "vfs", value: "x&y=z")])
                == "file:///a%20b/c%3Fd%23e%25f?vfs=x%26y%3Dz")
        #expect(CipherVFS.plainURI(path: "//host/x", parameters: []) == "file:////host/x")
        #expect(
            CipherVFS.plainURI(path: "relative/é.db", parameters: [(name: "immutable", value: "1")])
                == "file:relative/%C3%A9.db?immutable=1")
        #expect(CipherVFS.uri(path: "/s.sqlite") == "file:///s.sqlite?vfs=\(CipherVFS.name)")
    }
}
