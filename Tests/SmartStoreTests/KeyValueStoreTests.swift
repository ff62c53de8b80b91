import Foundation
import SmartStore
import Testing

/// The encrypted key-value store beside the soups.
@Suite struct KeyValueStoreTests {
    static let key = StoreKey.passphrase("correct horse", kdfIterations: 1_000)

    @Test func valuesRoundTripEncrypted() throws {
        let folder = TemporaryFolder()
        let store = try KeyValueEncryptedFileStore(parentDirectory: folder.url, name: "cache", key: Self.key)
        #expect(try store.keys().isEmpty)
        try store.write(Data("secret payload".utf8), forKey: "a")
        try store.write(Data("second secret".utf8), forKey: "b")
        try store.write(Data("third".utf8), forKey: "c/with:odd chars")
        #expect(try store.read(forKey: "a") == Data("secret payload".utf8))
        #expect(try store.read(forKey: "b") == Data("second secret".utf8) && store.read(forKey: "nope") == nil)
        #expect(try store.keys() == ["a", "b", "c/with:odd chars"])
        try store.write(Data("replaced".utf8), forKey: "b")
        #expect(try store.read(forKey: "b") == Data("replaced".utf8) && store.keys().count == 3)
        // Nothing readable on disk.
        for file in try FileManager.default.contentsOfDirectory(atPath: store.directory.path) {
            let bytes = try Data(contentsOf: store.directory.appendingPathComponent(file))
            for text in ["secret", "replaced", "third", "c/with"] { #expect(bytes.range(of: Data(text.utf8)) == nil, "\(file)") }
        }
        // Reopened with the key: the same values; with another key: refused.
        let again = try KeyValueEncryptedFileStore(parentDirectory: folder.url, name: "cache", key: Self.key)
        #expect(try again.read(forKey: "a") == Data("secret payload".utf8))
        #expect(throws: SmartStoreError.wrongKey(path: store.directory.path)) {
            try KeyValueEncryptedFileStore(parentDirectory: folder.url, name: "cache", key: .passphrase("wrong", kdfIterations: 1_000))
        }
        #expect(try store.delete(forKey: "a"))
        #expect(try !store.delete(forKey: "a"))
        #expect(try store.delete(forKey: "b") && store.keys() == ["c/with:odd chars"])
        try store.write(Data("1".utf8), forKey: "x")
        try store.deleteAll()
        #expect(try store.keys().isEmpty && store.read(forKey: "x") == nil)
    }

    @Test func alteredOrSwappedFilesDoNotOpen() throws {
        let folder = TemporaryFolder()
        let store = try KeyValueEncryptedFileStore(
            parentDirectory: folder.url, name: "cache", key: try .raw([UInt8](repeating: 7, count: 32)))
        try store.write(Data("1".utf8), forKey: "one")
        try store.write(Data("2".utf8), forKey: "two")
        let files = try FileManager.default.contentsOfDirectory(atPath: store.directory.path).filter { $0.hasSuffix(".value") }.sorted()
        let (first, second) = (store.directory.appendingPathComponent(files[0]), store.directory.appendingPathComponent(files[1]))
        // Swapped: each file is bound to its name.
        let (a, b) = (try Data(contentsOf: first), try Data(contentsOf: second))
        try b.write(to: first)
        try a.write(to: second)
        #expect(throws: SmartStoreError.self) { try store.read(forKey: "one") }
        // A flipped byte.
        var flipped = a
        flipped[flipped.count / 2] ^= 1
        try flipped.write(to: first)
        #expect(throws: SmartStoreError.self) { try store.read(forKey: "one") }
        #expect(throws: SmartStoreError.self) { try store.read(forKey: "two") }
    }

    /// A file copied from one store into another, where its name says the same key, does not
    /// open there: each store has its own key, even under one ``StoreKey``.
    @Test func entriesDoNotMoveBetweenStores() throws {
        let folder = TemporaryFolder()
        let key = try StoreKey.raw([UInt8](repeating: 9, count: 32))
        let first = try KeyValueEncryptedFileStore(parentDirectory: folder.url, name: "one", key: key)
        let second = try KeyValueEncryptedFileStore(parentDirectory: folder.url, name: "two", key: key)
        try first.write(Data("first's secret".utf8), forKey: "token")
        try second.write(Data("second's".utf8), forKey: "token")
        for file in try FileManager.default.contentsOfDirectory(atPath: first.directory.path) where file.hasSuffix(".value") {
            try FileManager.default.removeItem(at: second.directory.appendingPathComponent(file))
            try FileManager.default.copyItem(
                at: first.directory.appendingPathComponent(file), to: second.directory.appendingPathComponent(file))
        }
        #expect(throws: SmartStoreError.self) { try second.read(forKey: "token") }
        #expect(try first.read(forKey: "token") == Data("first's secret".utf8))
        // An entry whose value file went (a crash between the two writes) does not count.
        try first.write(Data("x".utf8), forKey: "half")
        for file in try FileManager.default.contentsOfDirectory(atPath: first.directory.path) where file.hasSuffix(".value") {
            try FileManager.default.removeItem(at: first.directory.appendingPathComponent(file))
        }
        #expect(try first.keys().isEmpty && first.read(forKey: "half") == nil)
    }

    @Test func namesFollowTheSDKsRule() throws {
        #expect(KeyValueEncryptedFileStore.isValidName("images_2"))
        for bad in ["", "has space", "dot.dot", "../up", String(repeating: "a", count: 97), "é"] {
            #expect(!KeyValueEncryptedFileStore.isValidName(bad))
            #expect(throws: SmartStoreError.invalidStoreName(bad)) {
                try KeyValueEncryptedFileStore(parentDirectory: TemporaryFolder().url, name: bad, key: Self.key)
            }
        }
    }

    @Test func aDirectoryKeepsThemPerUser() throws {
        let folder = TemporaryFolder()
        let directory = StoreDirectory(root: folder.url, keyProvider: FileStoreKeyProvider(file: folder.url.appendingPathComponent("keys")))
        let mine = try directory.keyValueStore(user: "00D-005A", named: "prefs")
        try mine.write(Data("dark".utf8), forKey: "theme")
        #expect(try directory.keyValueStore(user: "00D-005A", named: "prefs") === mine)
        #expect(try directory.keyValueStore(user: "00D-005B", named: "prefs").read(forKey: "theme") == nil)
        _ = try directory.keyValueStore(user: nil, named: "shared")
        #expect(try directory.keyValueStoreNames(user: "00D-005A") == ["prefs"] && directory.keyValueStoreNames(user: nil) == ["shared"])
        // Names no store can have never reach the file system.
        for bad in ["..", "../stores", "../../users", ""] {
            #expect(throws: SmartStoreError.invalidStoreName(bad)) { try directory.removeKeyValueStores(user: nil, named: bad) }
            #expect(throws: SmartStoreError.invalidStoreName(bad)) { try directory.keyValueStore(user: "00D-005A", named: bad) }
        }
        #expect(try directory.keyValueStoreNames(user: nil) == ["shared"])
        try directory.removeKeyValueStores(user: "00D-005A", named: nil)
        #expect(try directory.keyValueStoreNames(user: "00D-005A").isEmpty)
        #expect(throws: SmartStoreError.self) { try StoreDirectory(root: folder.url).keyValueStore(user: nil, named: "plain") }
    }
}

/// A temporary folder removed when the value goes.
final class TemporaryFolder {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("kv-\(UUID().uuidString)")
    deinit { try? FileManager.default.removeItem(at: url) }
}
