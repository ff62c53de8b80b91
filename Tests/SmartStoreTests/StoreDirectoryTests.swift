import Foundation
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
}
