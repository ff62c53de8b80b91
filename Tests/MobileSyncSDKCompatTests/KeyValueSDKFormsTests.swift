import Foundation
import MobileSyncSDKCompat
import SmartStore
import Testing

/// The key-value store's quiet forms, spelled as an SDK app spells them.
@Suite struct KeyValueSDKFormsTests {
    static let key = StoreKey.passphrase("correct horse", kdfIterations: 1_000)

    @Test func quietFormsAnswerAsTheSDKs() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kv-sdk-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try KeyValueEncryptedFileStore(parentDirectory: folder, name: "cache", key: Self.key)
        #expect(store.isEmpty() && store.count() == 0)
        store["b"] = "second secret"
        #expect(store.saveValue("third", forKey: "c/with:odd chars"))
        #expect(store.saveData(Data("raw".utf8), forKey: "a"))
        #expect(store["b"] == "second secret" && store.readData(key: "nope") == nil)
        #expect(try store.count() == 3 && store.allKeys() == store.keys())
        store["b"] = "replaced"
        #expect(store["b"] == "replaced" && store.count() == 3)
        #expect(store.removeValue(forKey: "b") && store.count() == 2)
        #expect(store.removeValue(forKey: "never there")) // the SDK's answer for an absent key
        store["c/with:odd chars"] = nil
        #expect(store.allKeys() == ["a"])
        store.removeAll()
        #expect(store.isEmpty())
    }

    /// An entry that does not open is nil and left out of `allKeys()`, where the core throws.
    @Test func entriesThatDoNotOpenAreLeftOut() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kv-sdk-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try KeyValueEncryptedFileStore(parentDirectory: folder, name: "cache", key: Self.key)
        store["one"] = "1"
        store["two"] = "2"
        let files = try FileManager.default.contentsOfDirectory(atPath: store.directory.path).filter { $0.hasSuffix(".key") }.sorted()
        var sealed = try Data(contentsOf: store.directory.appendingPathComponent(files[0]))
        sealed[sealed.count / 2] ^= 1
        try sealed.write(to: store.directory.appendingPathComponent(files[0]))
        #expect(throws: SmartStoreError.self) { try store.keys() }
        #expect(store.allKeys().count == 1 && store.count() == 2)
    }
}
