import Foundation
import Locking
import SmartStore
import Testing

/// Named stores: user and global, listed and removed.
@Suite struct StoreDirectoryTests {
    @Test func userAndGlobalStores() throws {
        let directory = TemporaryDirectory()
        let stores = StoreDirectory(root: directory.url)
        let user = try stores.userStore(user: "005A")
        try user.registerSoup("accounts", indexSpecs: [IndexSpec("Id", .string)])
        try user.create(["Id": "1"], in: "accounts")
        #expect(try stores.userStore(user: "005A") === user)
        #expect(user.path?.hasSuffix("users/005A/stores/defaultStore/store.sqlite") == true)
        _ = try stores.userStore(user: "005A", named: "cache")
        _ = try stores.userStore(user: "005B")
        let global = try stores.globalStore(named: "shared")
        #expect(global.path?.hasSuffix("global/stores/shared/store.sqlite") == true)
        #expect(try stores.userStoreNames(user: "005A") == ["cache", "defaultStore"])
        #expect(try stores.userStoreNames(user: "005B") == ["defaultStore"])
        #expect(try stores.globalStoreNames() == ["shared"])
        #expect(try stores.hasUserStore(user: "005A", named: "cache"))
        try stores.removeUserStore(user: "005A", named: "cache")
        #expect(try stores.userStoreNames(user: "005A") == ["defaultStore"])
        try stores.removeAllUserStores(user: "005A")
        #expect(try stores.userStoreNames(user: "005A").isEmpty)
        #expect(try stores.userStoreNames(user: "005B") == ["defaultStore"])
        try stores.removeAllGlobalStores()
        #expect(try stores.globalStoreNames().isEmpty)
        // A removed store starts empty when opened again.
        #expect(try stores.userStore(user: "005A").soupNames().isEmpty)
    }

    /// One instance per file until the user's stores are closed; then the file opens again,
    /// with its data, and other users' stores are untouched.
    @Test func closingAUsersStores() throws {
        let directory = TemporaryDirectory()
        let stores = StoreDirectory(root: directory.url)
        let first = try stores.userStore(user: "005A")
        let other = try stores.userStore(user: "005B")
        try first.registerSoup("accounts", indexSpecs: [IndexSpec("Id", .string)])
        #expect(try stores.userStore(user: "005A") === first)
        try stores.closeUserStores(user: "005A")
        let reopened = try stores.userStore(user: "005A")
        #expect(reopened !== first)
        #expect(try reopened.hasSoup("accounts"))
        #expect(try stores.userStore(user: "005B") === other)
    }

    @Test func dataPersistsAcrossOpens() throws {
        let directory = TemporaryDirectory()
        do {
            let store = try StoreDirectory(root: directory.url).globalStore()
            try store.registerSoup("s", indexSpecs: [IndexSpec("k", .string)])
            try store.create(["k": "v"], in: "s")
        }
        let reopened = try StoreDirectory(root: directory.url).globalStore()
        #expect(try reopened.query(.all(soup: "s", pageSize: 5)).map { $0["k"] } == ["v"])
    }

    /// A key provider that hands out the key it is given (tests swap it, as a device restore
    /// without the Keychain would).
    final class SwappableKeys: StoreKeyProvider, Sendable {
        private let given: Locked<StoreKey>
        init(_ key: StoreKey) { given = Locked(key) }
        func swap(_ key: StoreKey) { given.withLock { $0 = key } }
        func key(forStore name: String, user: String?) throws -> StoreKey? { given.current }
    }

    /// The key lost, the store present (a backup restored to another device): opening it is a
    /// typed error and changes nothing; the documented recovery, removing it and syncing into a
    /// new store, works; nothing is wiped silently.
    @Test func aLostKeyIsATypedErrorAndTheStoreCanBeReplaced() throws {
        let folder = TemporaryDirectory()
        let root = folder.url.appendingPathComponent("root")
        let keys = SwappableKeys(StoreKey.passphrase("first key", kdfIterations: 1000))
        do {
            let stores = StoreDirectory(root: root, keyProvider: keys)
            let store = try stores.userStore(user: "005A")
            try store.registerSoup("accounts", indexSpecs: [IndexSpec("Id", .string)])
            try store.create(["Id": "001"], in: "accounts")
            try store.close()
        }
        let file = root.appendingPathComponent("users/005A/stores/\(StoreDirectory.defaultStoreName)/store.sqlite").path
        let before = try Data(contentsOf: URL(fileURLWithPath: file))
        keys.swap(StoreKey.passphrase("a new device's key", kdfIterations: 1000))
        let restored = StoreDirectory(root: root, keyProvider: keys)
        #expect(throws: SmartStoreError.wrongKey(path: file)) { try restored.userStore(user: "005A") }
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before)
        try restored.removeUserStore(user: "005A", named: StoreDirectory.defaultStoreName)
        let fresh = try restored.userStore(user: "005A")
        #expect(try fresh.soupNames().isEmpty)
    }
}
