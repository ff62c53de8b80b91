import Foundation
import GRDB
import Testing

@testable import SmartStore

/// Store options reach every connection: the page cache, fullfsync, the pool's readers and
/// GRDB's suspension notifications.
@Suite(.serialized) struct StoreOptionsTests { // suspension reaches every observing store of the process
    /// `PRAGMA name` on the writer, a pool reader and a plain reader.
    static func pragma(_ name: String, _ store: SmartStore) throws -> [Int] {
        let sql = "PRAGMA \(name)"
        return [
            try store.write { db in try Int.fetchOne(db, sql: sql) ?? 0 },
            try store.read { db in try Int.fetchOne(db, sql: sql) ?? 0 },
            try store.readSingleStatement { db in try Int.fetchOne(db, sql: sql) ?? 0 },
        ]
    }

    /// A directory's stores open with its options: an app extension's by default in an `.appex`.
    @Test func aStoreDirectoryOpensItsStoresWithItsOptions() throws {
        #expect(StoreOptions.forBundle(atPath: "/private/var/containers/Bundle/Application/X/App.app/PlugIns/Share.appex") == .appExtension)
        #expect(StoreOptions.forBundle(atPath: "/Applications/App.app/Contents/PlugIns/Widget.APPEX/") == .appExtension)
        #expect(StoreOptions.forBundle(atPath: "/private/var/containers/Bundle/Application/X/App.app") == .default)
        #expect(StoreOptions.forBundle(atPath: "/usr/bin") == .default)
        #expect(StoreOptions.forCurrentProcess == .default) // the test runner is no extension
        let directory = TemporaryDirectory()
        let stores = StoreDirectory(root: URL(fileURLWithPath: directory.path("stores")), options: .appExtension)
        #expect(stores.options == .appExtension)
        let store = try stores.userStore(user: "005A")
        #expect(try Self.pragma("cache_size", store) == [-512, -512, -512])
        #expect(store.writer.configuration.maximumReaderCount == 2 && store.writer.configuration.observesSuspensionNotifications)
        let global = try stores.globalStore()
        #expect(global.writer.configuration.maximumReaderCount == 2)
        let plain = StoreDirectory(root: URL(fileURLWithPath: directory.path("plain")))
        #expect(plain.options == .default)
        #expect(try Self.pragma("cache_size", try plain.userStore(user: "005A")) == [-2000, -2000, -2000])
    }

    @Test func defaultsAndChoicesReachEveryConnection() throws {
        let directory = TemporaryDirectory()
        // Defaults: SQLite's 2 MiB cache (-2000) for a plaintext store; for an encrypted one 16 MiB
        // for the writer and 4 MiB for readers (which share 64 MiB of decrypted pages).
        let plain = try SmartStore(path: directory.path("plain.sqlite"))
        #expect(try Self.pragma("cache_size", plain) == [-2000, -2000, -2000])
        #expect(try Self.pragma("fullfsync", plain) == Array(repeating: StoreOptions.defaultFullFsync ? 1 : 0, count: 3))
        #expect(plain.writer.configuration.maximumReaderCount == 5 && !plain.writer.configuration.observesSuspensionNotifications)
        let encrypted = try SmartStore(path: directory.path("encrypted.sqlite"), key: EncryptedStoreTests.key)
        #expect(try Self.pragma("cache_size", encrypted) == [-16384, -4096, -4096])
        #expect(StoreOptions.default.sharedCacheKiB == 65536 && StoreOptions.appExtension.sharedCacheKiB == 1024)
        // An app extension's options, and one's own.
        let small = try SmartStore(path: directory.path("extension.sqlite"), key: EncryptedStoreTests.key, options: .appExtension)
        #expect(try Self.pragma("cache_size", small) == [-512, -512, -512])
        #expect(small.writer.configuration.maximumReaderCount == 2 && small.writer.configuration.observesSuspensionNotifications)
        let chosen = try SmartStore(
            path: directory.path("chosen.sqlite"), options: StoreOptions(cacheSizeKiB: 4096, maximumReaderCount: 0, fullFsync: true))
        #expect(try Self.pragma("cache_size", chosen) == [-4096, -4096, -4096])
        #expect(try Self.pragma("fullfsync", chosen) == [1, 1, 1])
        #expect(chosen.writer.configuration.maximumReaderCount == 1)
        // The options change nothing of what the store holds.
        try chosen.registerSoup("notes", indexSpecs: [IndexSpec("title", .string)])
        try chosen.create(["title": "kept"], in: "notes")
        #expect(try chosen.count(.all(soup: "notes", pageSize: 1)) == 1)
    }

    /// A store that observes suspension refuses writes while suspended (it holds no lock for the
    /// system to end the app over), and takes them again once resumed; one that does not is not
    /// affected.
    @Test(arguments: [true, false])
    func suspensionStopsWritesUntilResumed(observes: Bool) throws {
        let directory = TemporaryDirectory()
        let store = try SmartStore(
            path: directory.path("store.sqlite"), options: StoreOptions(observesSuspensionNotifications: observes))
        try store.registerSoup("notes", indexSpecs: [IndexSpec("title", .string)])
        SmartStore.suspendStores()
        let refused = (try? store.create(["title": "while suspended"], in: "notes")) == nil
        SmartStore.resumeStores()
        #expect(refused == observes)
        try store.create(["title": "after"], in: "notes")
        #expect(try store.count(.all(soup: "notes", pageSize: 1)) == (observes ? 1 : 2))
    }
}
