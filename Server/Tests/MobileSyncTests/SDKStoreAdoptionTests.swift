import FastJSON
import Foundation
import LocalForceTesting
import MobileSyncSDKCompat
import SalesforceREST
import Testing

/// Stores the Mobile SDK kept, in its folders and with its key, adopted with their edits not
/// synced yet: the syncs they hold then run here.
@Suite struct SDKStoreAdoptionTests {
    /// A store as the iOS SDK leaves it: in its folder for the user, encrypted with its key (the
    /// Base64 text of 32 bytes as a SQLCipher passphrase, 4,000 iterations), with a soup, a
    /// record synced down, one edited and one created offline, and the app's sync up.
    static func sdkStore(at location: SDKStoreLocation, of user: UserAccount, keyData: Data, serverId: String) async throws {
        let folder = location.userStores(of: user).appendingPathComponent("defaultStore")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let store = try SmartStore(path: folder.appendingPathComponent("store.sqlite").path, key: .sdk(keyData: keyData))
        try store.registerSoup("accounts", indexSpecs: [IndexSpec("Id", .string), IndexSpec(kSyncTargetLocal, .string)])
        let synced = try await store.create(
            ["Id": .string(serverId), "Name": "Acme", "attributes": ["type": "Account"], kSyncTargetLocal: false], in: "accounts")
        _ = try await store.updateLocally(
            ["Name": "Acme (edited offline)"], entryId: synced["_soupEntryId"]?.int64Value ?? -1, in: "accounts")
        _ = try await store.createLocally(["Name": "Created offline"], objectType: "Account", in: "accounts")
        let client = RestClient(instanceURL: URL(fileURLWithPath: "/unused"), tokenProvider: StaticAccessToken("unused"))
        let manager = try SyncManager(store: store, client: client)
        _ = try await manager.createSyncUp(
            target: CollectionSyncUpTarget(), options: SyncOptions(fieldlist: ["Name"]), soupName: "accounts", name: "syncUpAccounts")
        try store.close()
    }

    @Test func anSDKStoreIsAdoptedWithItsEditsAndItsSyncs() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("adopt-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let org = try await TestOrg.start(transport: .http)
        let serverId = try await org.client.create("Account", fields: ["Name": "Acme"])
        let user = UserAccount(
            userId: "005A", orgId: "00DA", instanceURL: try #require(org.baseURL), tokenProvider: StaticAccessToken(TestOrg.token))
        let location = SDKStoreLocation(base: folder.appendingPathComponent("Documents/com.acme.app"))
        let keyData = Data((0..<32).map { UInt8(($0 * 13) % 256) })
        try await Self.sdkStore(at: location, of: user, keyData: keyData, serverId: serverId)
        #expect(location.userStores(of: user).path.hasSuffix("Documents/com.acme.app/00DA/005A/internal/stores"))

        let sdk = MobileSyncSDKManager(
            root: folder.appendingPathComponent("root"), keyProvider: FileStoreKeyProvider(file: folder.appendingPathComponent("keys")))
        try await sdk.setCurrentUser(user)
        // The wrong key: refused, nothing left behind.
        #expect(throws: SmartStoreError.self) {
            try sdk.adoptSDKStores(of: user, from: location, sdkKey: .sdk(keyData: Data(repeating: 1, count: 32)))
        }
        let adopted = folder.appendingPathComponent("root/users/00DA-005A/stores/defaultStore/store.sqlite").path
        #expect(!FileManager.default.fileExists(atPath: adopted))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("root/users/00DA-005A").path) == ["stores"])
        // What an adoption cut short by a crash left aside goes with the next one.
        let leftAside = folder.appendingPathComponent("root/users/00DA-005A/.adopting-crashed")
        try FileManager.default.createDirectory(at: leftAside, withIntermediateDirectories: true)
        #expect(try sdk.adoptSDKStores(of: user, from: location, sdkKey: .sdk(keyData: keyData)) == ["defaultStore"])
        #expect(!FileManager.default.fileExists(atPath: leftAside.path))
        #expect(throws: SDKStoreError.storeExists(name: "defaultStore")) {
            try sdk.adoptSDKStores(of: user, from: location, sdkKey: .sdk(keyData: keyData))
        }

        // The adopted store opens with this manager's key; its sync up sends both edits.
        let manager = try sdk.syncManager()
        #expect(try await manager.store.query(.all(soup: "accounts", pageSize: 10)).count == 2)
        let sync = try await manager.reSync(named: "syncUpAccounts")
        #expect(sync.isDone && sync.failedRecordCount == 0)
        let names = try await org.client.query("SELECT Name FROM Account ORDER BY Name").records().compactMap { $0["Name"]?.stringValue }
        #expect(names == ["Acme (edited offline)", "Created offline"])
        // The SDK's file stays, under the SDK's key.
        let original = location.userStores(of: user).appendingPathComponent("defaultStore/store.sqlite").path
        let sdkFile = try SmartStore(path: original, key: .sdk(keyData: keyData))
        #expect(try await sdkFile.query(.all(soup: "accounts", pageSize: 10)).count == 2)
        await org.stop()
    }
}
