import Foundation
import Testing

@testable import SmartStore

/// Key providers, and a store directory that encrypts every store it opens.
@Suite struct KeyProviderTests {
    @Test func aKeyFileIsMadeOnceAndOnlyItsOwnerCanReadIt() throws {
        let folder = TemporaryDirectory()
        let file = folder.url.appendingPathComponent("keys/store.key")
        let provider = FileStoreKeyProvider(file: file)
        let first = try #require(try provider.key(forStore: "defaultStore", user: "005A"))
        let permissions = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.hasPrefix("x'") && text.count == 68)
        #expect(try provider.key(forStore: "other", user: nil) == first)
        #expect(first.description == "StoreKey(raw)")

        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        #expect(throws: SmartStoreError.self) { try provider.key(forStore: "defaultStore", user: nil) }
    }

    @Test func anUnsetVariableIsAnErrorNotAPlaintextStore() throws {
        let name = "MSYNC_TEST_KEY_\(UUID().uuidString.prefix(8))"
        #expect(throws: SmartStoreError.invalidKey("The environment variable \(name) holds no store key")) {
            try EnvironmentStoreKeyProvider(variable: name).key(forStore: "s", user: nil)
        }
        setenv(name, "x'" + String(repeating: "ab", count: 32) + "'", 1)
        defer { unsetenv(name) }
        #expect(
            try EnvironmentStoreKeyProvider(variable: name).key(forStore: "s", user: nil)
                == (try StoreKey.raw([UInt8](repeating: 0xab, count: 32))))
    }

    @Test func aDirectoryWithAProviderEncryptsEveryStore() throws {
        let folder = TemporaryDirectory()
        let provider = FileStoreKeyProvider(file: folder.url.appendingPathComponent("store.key"))
        let stores = StoreDirectory(root: folder.url.appendingPathComponent("root"), keyProvider: provider)
        let user = try stores.userStore(user: "005A")
        let global = try stores.globalStore(named: "shared")
        #expect(user.isEncrypted && global.isEncrypted)
        try user.registerSoup("notes", indexSpecs: [IndexSpec("title", .string)])
        _ = try user.create(["title": .string(EncryptedStoreTests.marker)], in: "notes")
        try user.close()
        try stores.closeUserStores(user: "005A")
        let reopened = try stores.userStore(user: "005A")
        #expect(reopened !== user)
        #expect(try reopened.query(.smart("select {notes:title} from {notes}", pageSize: 1)) == [[.string(EncryptedStoreTests.marker)]])
        let path = try #require(reopened.path)
        #expect(try EncryptedStoreTests.fileContains(path, EncryptedStoreTests.marker) == false)
        // Without the provider, the store does not open.
        try reopened.close()
        try stores.closeUserStores(user: "005A")
        let plain = StoreDirectory(root: folder.url.appendingPathComponent("root"))
        #expect(throws: SmartStoreError.keyRequired(path: path)) { try plain.userStore(user: "005A") }
    }

    @Test func thePlatformKeyFileFollowsXDG() {
        #expect(PlatformStoreKeyProvider.keyFile(environment: ["XDG_CONFIG_HOME": "/cfg"]).path == "/cfg/msync/store.key")
        let home = NSHomeDirectory()
        #expect(PlatformStoreKeyProvider.keyFile(environment: ["XDG_CONFIG_HOME": ""]).path == home + "/.config/msync/store.key")
        #expect(PlatformStoreKeyProvider.keyFile(environment: [:]).path == home + "/.config/msync/store.key")
        #expect(PlatformStoreKeyProvider.keyFile(environment: ["HOME": "/h"]).path == "/h/.config/msync/store.key")
    }

    @Test func rawKeysAndSQLCipherSyntax() throws {
        #expect(throws: SmartStoreError.invalidKey("A raw store key has 32 bytes, not 3")) { try StoreKey.raw([1, 2, 3]) }
        let raw = StoreKey(sqlcipherKey: "X'" + String(repeating: "0A", count: 32) + "'")
        #expect(raw == (try StoreKey.raw([UInt8](repeating: 10, count: 32))))
        let withSalt = StoreKey(sqlcipherKey: "x'" + String(repeating: "01", count: 48) + "'")
        #expect(withSalt.description == "StoreKey(raw, with salt)")
        #expect(StoreKey(sqlcipherKey: "x'zz'").description == "StoreKey(passphrase, 256000 PBKDF2 iterations)")
        #expect(StoreKey.passphrase("p", kdfIterations: 0).description == "StoreKey(passphrase, 1 PBKDF2 iterations)")
    }
}
