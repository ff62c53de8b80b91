import FastJSON
import Foundation
import LocalForceTesting
import MobileSyncSDKCompat
import NIOConcurrencyHelpers
import SalesforceREST
import SmartStore
import Testing

#if canImport(Combine)
    import Combine
#else
    import OpenCombine
#endif

/// A temporary app folder whose `resources` hold these `userstore.json` and `usersyncs.json`.
func appFolder(userStore: String, userSyncs: String) throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sdk-app-\(UUID().uuidString)")
    let resources = folder.appendingPathComponent("resources")
    try FileManager.default.createDirectory(at: resources, withIntermediateDirectories: true)
    try Data(userStore.utf8).write(to: resources.appendingPathComponent("userstore.json"))
    try Data(userSyncs.utf8).write(to: resources.appendingPathComponent("usersyncs.json"))
    return folder
}

/// The SDK manager: the current user's stores and managers, default configs once per session,
/// and a user switch that closes the previous user's.
@Suite struct SDKManagerTests {
    static let userStore = #"""
        {"soups": [
          {"soupName": "accounts", "indexes": [{"path": "Id", "type": "string"}, {"path": "Name", "type": "string"},
                                               {"path": "LastModifiedDate", "type": "string"}, {"path": "__local__", "type": "string"}]},
          {"soupName": "broken", "indexes": [{"path": "Id", "type": "text"}]}
        ]}
        """#
    static let userSyncs = #"""
        {"syncs": [
          {"syncName": "syncDownAccounts", "syncType": "syncDown", "soupName": "accounts",
           "target": {"type": "soql", "query": "SELECT Id, Name, LastModifiedDate FROM Account"}, "options": {"mergeMode": "OVERWRITE"}},
          {"syncName": "noTarget", "syncType": "syncDown", "soupName": "accounts", "options": {}}
        ]}
        """#

    @Test func templateSetupSyncAndUserSwitch() async throws {
        let folder = try appFolder(userStore: Self.userStore, userSyncs: Self.userSyncs)
        defer { try? FileManager.default.removeItem(at: folder) }
        let resources = folder.appendingPathComponent("resources")

        let org = try await TestOrg.start(transport: .http)
        let url = try #require(org.baseURL)
        _ = try await org.localForce.insert([["Name": "Acme"], ["Name": "Globex"]], of: "Account")
        let sdk = MobileSyncSDKManager(
            root: folder.appendingPathComponent("root"), resourcesDirectory: resources,
            keyProvider: FileStoreKeyProvider(file: folder.appendingPathComponent("store.key")))
        #expect(throws: SyncError.self) { try sdk.store() }
        // Without a user the setup fails, and may run again once there is one.
        #expect(throws: SyncError.self) { try sdk.setupUserStoreFromDefaultConfig() }

        let alice = UserAccount(userId: "005A", orgId: "00DA", instanceURL: url, tokenProvider: StaticAccessToken(TestOrg.token))
        try await sdk.setCurrentUser(alice)
        let storeReport = try #require(try sdk.setupUserStoreFromDefaultConfig())
        #expect(storeReport.registered == ["accounts"] && storeReport.rejected.map(\.soupName) == ["broken"])
        #expect(try sdk.setupUserStoreFromDefaultConfig() == nil) // once per session
        let syncsReport = try #require(try await sdk.setupUserSyncsFromDefaultConfig())
        #expect(syncsReport.created == ["syncDownAccounts"] && syncsReport.errors.map(\.name) == ["noTarget"])
        #expect(try await sdk.setupUserSyncsFromDefaultConfig() == nil)
        #expect(try await sdk.setupGlobalSyncsFromDefaultConfig() == nil) // no globalsyncs.json

        let manager = try sdk.syncManager()
        #expect(try sdk.syncManager() === manager)
        #expect(try sdk.store() === manager.store)
        let sync = try await manager.reSync(named: "syncDownAccounts")
        #expect(sync.isDone && sync.totalSize == 2)
        #expect(try await sdk.store().count(.all(soup: "accounts", pageSize: 1)) == 2)
        let aliceFile = folder.appendingPathComponent("root/users/00DA-005A/stores/defaultStore/store.sqlite").path
        #expect(FileManager.default.fileExists(atPath: aliceFile))
        // Encrypted, as the SDK's stores are: no record text in the store or its log.
        #expect(try sdk.store().isEncrypted)
        for file in [aliceFile, aliceFile + "-wal"] where FileManager.default.fileExists(atPath: file) {
            #expect(try Data(contentsOf: URL(fileURLWithPath: file)).range(of: Data("Globex".utf8)) == nil)
        }

        // Another user: Alice's manager stops, Bob gets his own store and a new session.
        let bob = UserAccount(userId: "005B", orgId: "00DA", instanceURL: url, tokenProvider: StaticAccessToken(TestOrg.token))
        try await sdk.setCurrentUser(bob)
        #expect(await manager.isStopped)
        #expect(try sdk.store() !== manager.store)
        #expect(try !sdk.store().hasSoup("accounts"))
        #expect(try sdk.setupUserStoreFromDefaultConfig()?.registered == ["accounts"])

        // Back to Alice while her old manager is still held: a new, working one.
        try await sdk.setCurrentUser(alice)
        let again = try sdk.syncManager()
        #expect(again !== manager)
        #expect(await again.isStopped == false)
        #expect(try await again.reSync(named: "syncDownAccounts").isDone)

        try await sdk.logout()
        #expect(sdk.currentUser == nil)
        #expect(throws: SyncError.self) { try sdk.syncManager() }
        await org.stop()
    }
}

/// The SDK template's sequence (its Mobile Sync documentation's SwiftUI sample), ported.
@Suite struct TemplateSequenceTests {
    static let userStore = #"""
        {"soups": [{"soupName": "Account", "indexes": [
          {"path": "Id", "type": "string"}, {"path": "Name", "type": "string"}, {"path": "Industry", "type": "string"},
          {"path": "LastModifiedDate", "type": "string"}, {"path": "__local__", "type": "string"}]}]}
        """#
    static let userSyncs = #"""
        {"syncs": [{"syncName": "syncDownAccounts", "syncType": "syncDown", "soupName": "Account",
                    "target": {"type": "soql", "query": "SELECT Id, Name, Industry, LastModifiedDate FROM Account"},
                    "options": {"mergeMode": "OVERWRITE"}}]}
        """#

    /// The first value a publisher emits (its failure, if it fails first).
    static func firstValue<P: Publisher>(_ publisher: P) async throws -> P.Output where P.Output: Sendable {
        var cancellable: AnyCancellable?
        let value: P.Output = try await withCheckedThrowingContinuation { continuation in
            let once = Once()
            cancellable = publisher.sink(
                receiveCompletion: { completion in
                    if case .failure(let error) = completion, once.claim() { continuation.resume(throwing: error) }
                },
                receiveValue: { value in if once.claim() { continuation.resume(returning: value) } })
        }
        cancellable?.cancel()
        return value
    }

    /// Lets one of several callbacks through.
    final class Once: Sendable {
        private let claimed = NIOLockedValueBox(false)
        func claim() -> Bool {
            claimed.withLockedValue { claimed in
                defer { claimed = true }
                return !claimed
            }
        }
        /// Whether a callback went through.
        var isClaimed: Bool { claimed.withLockedValue { $0 } }
    }

    /// Setup from the default configs, then `publisher(for: "syncDownAccounts")`, then
    /// `store.publisher(for:)`: the org's records arrive through the store publisher.
    @Test func templateSequenceAgainstLocalForce() async throws {
        let folder = try appFolder(userStore: Self.userStore, userSyncs: Self.userSyncs)
        defer { try? FileManager.default.removeItem(at: folder) }
        let resources = folder.appendingPathComponent("resources")
        let org = try await TestOrg.start(transport: .http)
        _ = try await org.localForce.insert(
            [["Name": "Acme", "Industry": "Energy"], ["Name": "Globex", "Industry": "Media"]], of: "Account")

        let sdk = MobileSyncSDKManager(
            root: folder.appendingPathComponent("root"), resourcesDirectory: resources,
            keyProvider: FileStoreKeyProvider(file: folder.appendingPathComponent("store.key")))
        try await sdk.setCurrentUser(
            UserAccount(
                userId: "005A", orgId: "00DA", instanceURL: try #require(org.baseURL), tokenProvider: StaticAccessToken(TestOrg.token)))
        try sdk.setupUserStoreFromDefaultConfig()
        try await sdk.setupUserSyncsFromDefaultConfig()
        let syncManager = try sdk.syncManager()
        let store = try sdk.store()

        let rows = try await Self.firstValue(
            syncManager.publisher(for: "syncDownAccounts")
                .mapError { $0 as any Error }
                .flatMap { _ in
                    store.publisher(for: "select {Account:Name}, {Account:Industry}, {Account:Id} from {Account}", pageSize: 10_000)
                })
        let accounts = rows.compactMap { $0.arrayValue }.map { [$0[0].stringValue ?? "", $0[1].stringValue ?? ""] }
        #expect(accounts.sorted { $0[0] < $1[0] } == [["Acme", "Energy"], ["Globex", "Media"]])

        // The async-sequence form: each state of the run, the last one DONE.
        var states: [MobileSync.SyncState] = []
        for try await state in syncManager.states(for: "syncDownAccounts") { states.append(state) }
        #expect(states.last?.isDone == true && states.dropLast().allSatisfy(\.isRunning))
        await #expect(throws: MobileSyncError.self) { _ = try await Self.firstValue(syncManager.publisher(for: "noSuchSync")) }
        await org.stop()
    }
}
