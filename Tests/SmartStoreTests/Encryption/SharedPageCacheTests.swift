import EncryptedSQLite
import FastJSON
import Foundation
import GRDB
import TestSupport
import Testing

@testable import SmartStore

/// The decrypted pages an encrypted store's connections share (`StoreOptions.sharedCacheKiB`):
/// a page decrypted once serves every connection, and a page changed on disk, by this process
/// or another, is never served stale nor unauthenticated.
@Suite(.serialized) struct SharedPageCacheTests {
    static let key = StoreKey(sqlcipherKey: SQLCipherInteropTests.rawKey)

    static func seeded(_ path: String, options: StoreOptions = .default) throws -> SmartStore {
        let store = try SmartStore(path: path, key: key, options: options)
        try store.registerSoup("notes", indexSpecs: [IndexSpec("title", .string)])
        _ = try store.create((0..<400).map { ["title": .string("note \($0) " + String(repeating: "x", count: 200))] }, in: "notes")
        return store
    }

    static func titles(_ store: SmartStore) throws -> [String] {
        try store.query(.smart("SELECT {notes:title} FROM {notes} ORDER BY {notes:_soupEntryId}", pageSize: 1000))
            .compactMap { $0.arrayValue?.first?.stringValue }
    }

    /// Every row of the soup, read on a pool reader or a plain reader.
    static let everyRow = "SELECT soup FROM TABLE_1 ORDER BY id"

    /// Pages a pool reader decrypted are copied, not decrypted again, when a plain reader (a
    /// connection whose SQLite cache is empty) reads them; with the cache off, every one is
    /// decrypted again.
    @Test(arguments: [StoreOptions.defaultSharedCacheKiB, 0]) func aPageDecryptedOnceServesEveryConnection(sharedKiB: Int) throws {
        let folder = TemporaryDirectory()
        let path = folder.path("store.sqlite")
        let store = try Self.seeded(path, options: StoreOptions(sharedCacheKiB: sharedKiB))
        try Self.checkpoint(store)
        #expect(try store.read { db in try String.fetchAll(db, sql: Self.everyRow) }.count == 400)
        let before = CipherVFS.pageCacheStatistics(path: path)
        #expect(try store.readSingleStatement { db in try String.fetchAll(db, sql: Self.everyRow) }.count == 400)
        let after = CipherVFS.pageCacheStatistics(path: path)
        if sharedKiB == 0 {
            #expect(after.hits == 0 && after.pages == 0 && after.misses - before.misses > 20, "\(before) → \(after)")
        } else {
            #expect(after.hits - before.hits > 20 && after.misses == before.misses, "\(before) → \(after)")
        }
    }

    /// `releaseMemory()`, and UIKit's memory warning and background notifications, empty the
    /// shared cache; reads fill it again.
    @Test func memoryPressureEmptiesTheCache() throws {
        let folder = TemporaryDirectory()
        let path = folder.path("store.sqlite")
        let store = try Self.seeded(path)
        try Self.checkpoint(store)
        let posts: [() -> Void] = MemoryRelease.names.map { name in { NotificationCenter.default.post(name: name, object: nil) } }
        let releases: [() -> Void] = [{ store.releaseMemory() }] + posts
        for release in releases {
            #expect(try store.read { db in try String.fetchAll(db, sql: Self.everyRow) }.count >= 400)
            #expect(CipherVFS.pageCacheStatistics(path: path).pages > 20)
            release()
            #expect(CipherVFS.pageCacheStatistics(path: path).pages == 0)
            _ = try store.create([["title": "after a release"]], in: "notes") // empties the readers' SQLite caches
        }
    }

    /// SQLCipher, in another process, rewrites every record and checkpoints while the store is
    /// open here with all its pages cached: the store reads the new values.
    @Test func pagesAnotherProcessRewroteAreReadFresh() async throws {
        let folder = TemporaryDirectory()
        let path = folder.path("store.sqlite")
        let store = try Self.seeded(path)
        try Self.checkpoint(store)
        #expect(try Self.titles(store).first?.hasPrefix("note 0 ") == true)
        #expect(CipherVFS.pageCacheStatistics(path: path).pages > 20) // what the rewrite must not be served from
        _ = try await SQLCipherInteropTests.sqlcipher(
            path, key: SQLCipherInteropTests.rawKey, kdfIterations: 256_000,
            [
                "UPDATE TABLE_1 SET soup = json_set(soup, '$.title', 'rewritten ' || id), TABLE_1_0 = 'rewritten ' || id",
                "PRAGMA wal_checkpoint(TRUNCATE)",
            ])
        let titles = try Self.titles(store)
        #expect(titles.count == 400 && titles.allSatisfy { $0.hasPrefix("rewritten ") })
    }

    /// A page altered on disk while the cache holds it: with its HMAC changed it is decrypted
    /// and refused as damaged; with only its body changed, the authentic page the cache holds
    /// for that HMAC is what is read (as the type documents).
    @Test func aPageAlteredOnDiskIsNeverServedUnauthenticated() throws {
        let folder = TemporaryDirectory()
        let path = folder.path("store.sqlite")
        let holder = try Self.seeded(path) // keeps the path leased, and so its cache, throughout
        try Self.checkpoint(holder)
        let original = try Self.titles(holder)
        let pages = Int(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0) / CipherFormat.pageSize
        try #require(pages > 5)
        // The last page holds records of the soup table.
        try Self.flip(path, at: (pages - 1) * CipherFormat.pageSize + 100)
        do {
            let reader = try SmartStore(path: path, key: Self.key) // an empty SQLite cache: reads the file
            let hits = CipherVFS.pageCacheStatistics(path: path).hits
            #expect(try Self.titles(reader) == original)
            #expect(CipherVFS.pageCacheStatistics(path: path).hits - hits > 20) // the altered page among them
            try reader.close()
        }
        try Self.flip(path, at: pages * CipherFormat.pageSize - 1) // the HMAC's last byte
        let reader = try SmartStore(path: path, key: Self.key)
        #expect(throws: SmartStoreError.corrupted(path: path, detail: "page \(pages) of the database does not authenticate")) {
            _ = try Self.titles(reader)
        }
        withExtendedLifetime(holder) {}
    }

    /// Moves the log's pages into the database file.
    static func checkpoint(_ store: SmartStore) throws {
        try store.writer.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
    }

    static func flip(_ path: String, at offset: Int) throws {
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        let byte = try #require(try handle.read(upToCount: 1)?.first)
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: [byte ^ 0x01])
    }
}
