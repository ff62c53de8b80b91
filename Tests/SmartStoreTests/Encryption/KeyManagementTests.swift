import FastJSON
import Foundation
import GRDB
import Testing

@testable import SmartStore

/// Changing a store's key, encrypting a plaintext store, and exporting a decrypted copy.
@Suite struct KeyManagementTests {
    static let oldKey = StoreKey.passphrase("old passphrase", kdfIterations: StoreKey.sdkKDFIterations)
    static let newKey = StoreKey(sqlcipherKey: "x'" + String(repeating: "a1b2c3d4e5f60718293a4b5c6d7e8f90", count: 2) + "'")

    static func makeStore(_ path: String, key: StoreKey?) throws {
        let store = try SmartStore(path: path, key: key)
        try store.registerSoup("notes", indexSpecs: [IndexSpec("title", .fullText)])
        _ = try store.create((0..<100).map { ["title": .string("\(EncryptedStoreTests.marker) note \($0)")] }, in: "notes")
        try store.close()
    }

    static func titles(_ store: SmartStore) throws -> Int {
        let rows = try store.query(.match(soup: "notes", path: "title", key: "note", pageSize: 200))
        return rows.count
    }

    @Test func changingTheKeyRewritesEveryPage() throws {
        let folder = TemporaryDirectory()
        let path = folder.path("store.sqlite")
        try Self.makeStore(path, key: Self.oldKey)
        try SmartStore.changeKey(ofStoreAt: path, from: Self.oldKey, to: Self.newKey)
        #expect(throws: SmartStoreError.wrongKey(path: path)) { try SmartStore(path: path, key: Self.oldKey) }
        #expect(try Self.titles(try SmartStore(path: path, key: Self.newKey)) == 100)
        #expect(try EncryptedStoreTests.fileContains(path, EncryptedStoreTests.marker) == false)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == ["store.sqlite"])
    }

    @Test func aWrongOldKeyChangesNothing() throws {
        let folder = TemporaryDirectory()
        let path = folder.path("store.sqlite")
        try Self.makeStore(path, key: Self.oldKey)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
        #expect(throws: SmartStoreError.wrongKey(path: path)) {
            try SmartStore.changeKey(ofStoreAt: path, from: .passphrase("guess", kdfIterations: 4000), to: Self.newKey)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == files)
        #expect(try Self.titles(try SmartStore(path: path, key: Self.oldKey)) == 100)
    }

    @Test func anOpenStoreIsNotRekeyed() throws {
        let folder = TemporaryDirectory()
        let path = folder.path("store.sqlite")
        try Self.makeStore(path, key: Self.oldKey)
        let store = try SmartStore(path: path, key: Self.oldKey)
        #expect(throws: SmartStoreError.storeInUse(path: path)) {
            try SmartStore.changeKey(ofStoreAt: path, from: Self.oldKey, to: Self.newKey)
        }
        #expect(try Self.titles(store) == 100)
    }

    /// A plaintext store open elsewhere (here, another connection; another process alike) is
    /// not encrypted under it: its lock refuses the copy.
    @Test func anOpenPlaintextStoreIsNotEncrypted() throws {
        let folder = TemporaryDirectory()
        let path = folder.path("store.sqlite")
        try Self.makeStore(path, key: nil)
        let store = try SmartStore(path: path)
        #expect(try Self.titles(store) == 100)
        #expect(throws: SmartStoreError.storeInUse(path: path)) { try SmartStore.encrypt(storeAt: path, with: Self.newKey) }
        #expect(try Self.titles(store) == 100)
        try store.close()
        try SmartStore.encrypt(storeAt: path, with: Self.newKey)
        #expect(try Self.titles(try SmartStore(path: path, key: Self.newKey)) == 100)
    }

    @Test func aPlaintextStoreIsEncryptedInPlace() throws {
        let folder = TemporaryDirectory()
        let path = folder.path("store.sqlite")
        try Self.makeStore(path, key: nil)
        #expect(try EncryptedStoreTests.fileContains(path, EncryptedStoreTests.marker))
        try SmartStore.encrypt(storeAt: path, with: Self.newKey)
        #expect(try EncryptedStoreTests.fileContains(path, EncryptedStoreTests.marker) == false)
        #expect(throws: SmartStoreError.keyRequired(path: path)) { try SmartStore(path: path) }
        let store = try SmartStore(path: path, key: Self.newKey)
        #expect(try Self.titles(store) == 100)
        _ = try store.create(["title": "after encryption"], in: "notes")
        try store.close()
        #expect(throws: SmartStoreError.keyRequired(path: path)) { try SmartStore.encrypt(storeAt: path, with: Self.newKey) }
    }

    @Test func aDecryptedCopyOpensInPlainSQLite() throws {
        let folder = TemporaryDirectory()
        let path = folder.path("store.sqlite")
        let copy = folder.path("plain.sqlite")
        try Self.makeStore(path, key: Self.oldKey)
        try SmartStore.exportDecrypted(storeAt: path, key: Self.oldKey, to: copy)
        #expect(try EncryptedStoreTests.fileContains(copy, EncryptedStoreTests.marker))
        // Plain SQLite (GRDB without the key) reads it.
        let queue = try DatabaseQueue(path: copy)
        #expect(try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM TABLE_1") } == 100)
        #expect(try Self.titles(try SmartStore(path: copy)) == 100)
        #expect(throws: SmartStoreError.database("Cannot export to \(copy): the file exists or cannot be created")) {
            try SmartStore.exportDecrypted(storeAt: path, key: Self.oldKey, to: copy)
        }
    }
}
