import FastJSON
import Foundation
import LocalForceTesting
import MobileSyncSDKCompat
import SalesforceREST
import SmartStore
import TestSupport
import Testing

/// The SDK's shared-instance names over `MobileSyncSDKManager.shared`, and several signed-in
/// users. Serialized: one test configures the process's shared manager.
@Suite(.serialized) struct SDKUsersTests {
    static func account(_ user: String, org: TestOrg, orgId: String = "00DA", communityId: String? = nil) throws -> UserAccount {
        UserAccount(
            userId: user, orgId: orgId, instanceURL: try #require(org.baseURL), communityId: communityId,
            tokenProvider: StaticAccessToken(TestOrg.token))
    }

    /// The template's model, as written, in an app process whose main thread runs the run
    /// loop (`sdk-template-app`): the accounts arrive through `.receive(on: RunLoop.main)`.
    @Test func theTemplatesModelRunsAsWritten() async throws {
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let app = try BuiltProduct.executable("sdk-template-app", package: package)
        let (status, output) = try await ChildProcess.run(app, [], timeout: .seconds(120))
        #expect(status == 0, "\(output)")
        let lines = output.split(separator: "\n").map { $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }
        #expect(lines.map { Array($0.prefix(2)) } == [["Acme", "Energy"], ["Initech", "Unknown Industry"]])
        #expect(lines.allSatisfy { $0.count == 3 && $0[2].hasPrefix("001") })
    }

    /// The SDK's static names over `MobileSyncSDKManager.shared`.
    @Test func theSharedNames() async throws {
        let folder = try appFolder(userStore: TemplateSequenceTests.userStore, userSyncs: TemplateSequenceTests.userSyncs)
        defer { try? FileManager.default.removeItem(at: folder) }
        let org = try await TestOrg.start(transport: .http)
        let sdk = MobileSyncSDKManager.shared
        sdk.configure(
            root: folder.appendingPathComponent("root"), resourcesDirectory: folder.appendingPathComponent("resources"),
            keyProvider: FileStoreKeyProvider(file: folder.appendingPathComponent("keys")))
        #expect(SmartStore.shared(withName: SmartStore.defaultStoreName) == nil) // no user yet
        #expect(KeyValueEncryptedFileStore.shared(withName: "prefs") == nil)
        let alice = try Self.account("005A", org: org)
        #expect(SyncManager.sharedInstance(forUserAccount: alice) == nil) // not signed in
        try await sdk.setCurrentUser(alice)
        let store = try #require(SmartStore.shared(withName: SmartStore.defaultStoreName))
        let manager = try #require(SyncManager.sharedInstance(store: store))
        #expect(SyncManager.sharedInstance(forUserAccount: alice) === manager)
        #expect(SyncManager.sharedInstance(named: "", forUserAccount: alice) === manager)
        #expect(SmartStore.shared(withName: "defaultStore", forUserAccount: alice) === store)

        // The layout and metadata managers of the user's default store.
        let layouts = try #require(LayoutSyncManager.sharedInstance())
        #expect(layouts.syncManager === manager && LayoutSyncManager.sharedInstance(alice) === layouts)
        LayoutSyncManager.reset(alice)
        #expect(LayoutSyncManager.sharedInstance() !== layouts)
        let metadata = try #require(MetadataSyncManager.sharedInstance(alice, smartStore: nil))
        #expect(try await metadata.fetchMetadata(forObject: "Account", fetchMode: .cacheFirst)?.keyPrefix == "001")
        MetadataSyncManager.reset()

        // The key-value stores, per user and global.
        let prefs = try #require(KeyValueEncryptedFileStore.shared(withName: "prefs"))
        prefs["theme"] = "dark"
        #expect(KeyValueEncryptedFileStore.shared(withName: "prefs", forUserAccount: alice)?["theme"] == "dark")
        #expect(KeyValueEncryptedFileStore.sharedGlobal(withName: "prefs")?["theme"] == nil)
        #expect(KeyValueEncryptedFileStore.allNames() == ["prefs"] && KeyValueEncryptedFileStore.allGlobalNames() == ["prefs"])
        KeyValueEncryptedFileStore.removeSharedGlobal(withName: "prefs")
        #expect(KeyValueEncryptedFileStore.allGlobalNames().isEmpty)

        // The static names.
        #expect(SmartStore.allStoreNames == ["defaultStore"])
        #expect(SmartStore.hasGlobalStore(withName: "settings") == false)
        let settings = try #require(SmartStore.sharedGlobal(withName: "settings"))
        _ = settings.registerSoup(withName: "prefs", withIndexPaths: ["key"])
        #expect(SmartStore.allGlobalStoreNames == ["settings"] && SmartStore.hasGlobalStore(withName: "settings"))
        #expect(SmartStore.removeSharedGlobal(withName: "settings"))
        #expect(SmartStore.allGlobalStoreNames.isEmpty)
        #expect(SmartStore.shared(withName: "bad/name") == nil)

        // Removing the shared instance stops it; a new one comes once it has stopped.
        SyncManager.removeSharedInstance(store: store)
        while SyncManager.sharedInstance(store: store) === manager { try await Task.sleep(for: .milliseconds(20)) }
        #expect(manager.isStopped)
        #expect(SmartStore.removeAllForCurrentUser())
        #expect(SmartStore.allStoreNames.isEmpty)
        try await sdk.logout(removingStores: true)
        #expect(sdk.userAccounts.isEmpty && SmartStore.allStoreNames.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("root/users/00DA-005A/kvstores/prefs").path))
        await org.stop()
    }

    /// Two users signed in at once, each syncing their own store from their own org.
    @Test func twoUsersSyncTheirOwnStoresAtOnce() async throws {
        let folder = try appFolder(userStore: TemplateSequenceTests.userStore, userSyncs: TemplateSequenceTests.userSyncs)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (orgA, orgB) = (try await TestOrg.start(transport: .http), try await TestOrg.start(transport: .http))
        _ = try await orgA.localForce.insert((0..<30).map { ["Name": .string("A\($0)")] }, of: "Account")
        _ = try await orgB.localForce.insert((0..<20).map { ["Name": .string("B\($0)")] }, of: "Account")
        let sdk = MobileSyncSDKManager(
            root: folder.appendingPathComponent("root"), resourcesDirectory: folder.appendingPathComponent("resources"), keyProvider: nil)
        let alice = try Self.account("005A", org: orgA)
        let bob = try Self.account("005B", org: orgB, orgId: "00DB")
        try await sdk.setCurrentUser(alice)
        let aliceStore = try sdk.store()
        try await sdk.setCurrentUser(bob)
        #expect(sdk.userAccounts.map(\.userId) == ["005A", "005B"] && sdk.currentUser?.userId == "005B")
        // Alice stays signed in: her store stays open, the same instance (one per file).
        #expect(try sdk.store(for: alice) === aliceStore)
        #expect(try sdk.syncManager().store !== aliceStore) // the current user's is Bob's

        let target = try SoqlSyncDownTarget(query: "SELECT Id, Name, LastModifiedDate FROM Account")
        let managers = try [alice, bob].map { user in
            let manager = try sdk.syncManager(for: user)
            try manager.store.registerSoup("Account", indexSpecs: [IndexSpec("Id", .string)])
            return manager
        }
        async let a = managers[0].syncDown(target: target, soupName: "Account", name: "accounts")
        async let b = managers[1].syncDown(target: target, soupName: "Account", name: "accounts")
        let (syncA, syncB) = try await (a, b)
        #expect(syncA.totalSize == 30 && syncB.totalSize == 20)
        #expect(try await managers[0].store.count(.all(soup: "Account", pageSize: 1)) == 30)
        #expect(try await managers[1].store.count(.all(soup: "Account", pageSize: 1)) == 20)
        let (storeA, storeB) = (managers[0].store, managers[1].store)
        #expect(storeA !== storeB)
        #expect(try sdk.store(for: alice) === managers[0].store)

        // Alice logs out, Bob's manager keeps working; her files stay unless asked.
        try await sdk.logout(alice)
        #expect(sdk.userAccounts.map(\.userId) == ["005B"] && sdk.currentUser?.userId == "005B")
        let (aliceStopped, bobStopped) = (managers[0].isStopped, managers[1].isStopped)
        #expect(aliceStopped && !bobStopped)
        #expect(throws: SyncError.self) { try sdk.store(for: alice) }
        #expect(try await managers[1].reSync(named: "accounts").isDone)
        let aliceFile = folder.appendingPathComponent("root/users/00DA-005A/stores/defaultStore/store.sqlite").path
        #expect(FileManager.default.fileExists(atPath: aliceFile))
        try await sdk.setCurrentUser(alice)
        try await sdk.logout(alice, removingStores: true)
        #expect(!FileManager.default.fileExists(atPath: aliceFile))
        await orgA.stop()
        await orgB.stop()
    }

    /// A switch while the previous user's sync runs: it ends STOPPED, and resumes when that
    /// user's manager restarts it.
    @Test func aSwitchStopsThePreviousUsersRunningSync() async throws {
        let folder = try appFolder(userStore: TemplateSequenceTests.userStore, userSyncs: TemplateSequenceTests.userSyncs)
        defer { try? FileManager.default.removeItem(at: folder) }
        let org = try await TestOrg.start(transport: .http)
        _ = try await org.localForce.insert((0..<1_000).map { ["Name": .string("A\($0)")] }, of: "Account")
        let sdk = MobileSyncSDKManager(
            root: folder.appendingPathComponent("root"), resourcesDirectory: folder.appendingPathComponent("resources"), keyProvider: nil)
        let alice = try Self.account("005A", org: org)
        let bob = try Self.account("005B", org: org)
        try await sdk.setCurrentUser(alice)
        try sdk.setupUserStoreFromDefaultConfig()
        let manager = try sdk.syncManager()
        let target = try SoqlSyncDownTarget(query: "SELECT Id, Name, LastModifiedDate FROM Account", maxBatchSize: 200)
        await org.localForce.faults.configure(rate: 0, latency: .milliseconds(150))
        let updates = SDKCallShapeTests.Updates()
        let first = try manager.syncDown(target: target, options: SyncOptions(mergeMode: .overwrite), soupName: "Account", syncName: "big")
        {
            updates.record($0)
        }
        while !updates.all.contains(where: { $0.status == .running && $0.progress > 0 }) { try await Task.sleep(for: .milliseconds(10)) }
        try await sdk.setCurrentUser(bob)
        #expect(await updates.final().status == .stopped)
        #expect(manager.isStopped)
        let stored = try await manager.store.count(.all(soup: "Account", pageSize: 1))
        #expect(stored > 0 && stored < 1_000)

        // Alice is still signed in: her store's new manager resumes the stopped sync.
        await org.localForce.faults.configure(rate: 0, latency: .zero)
        let again = try sdk.syncManager(for: alice)
        #expect(again !== manager)
        let resumed = try await again.restart(restartStoppedSyncs: true)
        #expect(resumed.map(\.id) == [Int64(first.syncId)] && resumed.allSatisfy(\.isDone))
        #expect(try await again.store.count(.all(soup: "Account", pageSize: 1)) == 1_000)
        await org.stop()
    }

    /// A community user keeps stores apart from the same user outside the community.
    @Test func aCommunityUserHasStoresOfItsOwn() async throws {
        let folder = try appFolder(userStore: TemplateSequenceTests.userStore, userSyncs: TemplateSequenceTests.userSyncs)
        defer { try? FileManager.default.removeItem(at: folder) }
        let org = try await TestOrg.start(transport: .http)
        let sdk = MobileSyncSDKManager(
            root: folder.appendingPathComponent("root"), resourcesDirectory: folder.appendingPathComponent("resources"), keyProvider: nil)
        let staff = try Self.account("005A", org: org)
        let community = try Self.account("005A", org: org, communityId: "0DBA")
        try await sdk.setCurrentUser(staff)
        try sdk.setupUserStoreFromDefaultConfig()
        try await sdk.setCurrentUser(community)
        #expect(sdk.userAccounts.count == 2)
        #expect(try !sdk.store().hasSoup("Account"))
        #expect(try sdk.store(for: staff).hasSoup("Account"))
        let (communityStore, staffStore) = (try sdk.store(), try sdk.store(for: staff))
        #expect(communityStore !== staffStore)
        await org.stop()
    }
}
