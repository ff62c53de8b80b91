import AccountsListExample
import FastJSON
import Foundation
import LocalForceTesting
import MobileSync
import MobileSyncSDKCompat
import SalesforceREST
import SmartStore
import Testing

#if canImport(Combine)
    import Combine
#else
    import OpenCombine
#endif

/// The ported template's view model, end to end against LocalForce.
@Suite struct AccountsListExampleTests {
    @Test func theModelShowsTheOrgsAccounts() async throws {
        let folder = try appFolder(userStore: TemplateSequenceTests.userStore, userSyncs: TemplateSequenceTests.userSyncs)
        defer { try? FileManager.default.removeItem(at: folder) }
        let org = try await TestOrg.start(transport: .http)
        _ = try await org.localForce.insert([["Name": "Acme", "Industry": "Energy"], ["Name": "Initech"]], of: "Account")
        let sdk = MobileSyncSDKManager(
            root: folder.appendingPathComponent("root"), resourcesDirectory: folder.appendingPathComponent("resources"),
            keyProvider: FileStoreKeyProvider(file: folder.appendingPathComponent("store.key")))
        try await sdk.setCurrentUser(
            UserAccount(
                userId: "005A", orgId: "00DA", instanceURL: try #require(org.baseURL), tokenProvider: StaticAccessToken(TestOrg.token)))

        let model = AccountsListModel(sdk: sdk, scheduler: ImmediateScheduler.shared)
        try await model.setUp()
        model.fetchAccounts()
        // @Published gives the current value on subscription, then each change.
        let loaded = try await TemplateSequenceTests.firstValue(model.$accounts.first { $0.count == 2 })
        #expect(loaded.map(\.name).sorted() == ["Acme", "Initech"])
        #expect(loaded.first { $0.name == "Acme" }?.industry == "Energy" && loaded.allSatisfy { $0.id.hasPrefix("001") })
        #expect(model.lastError == nil)
        await org.stop()
    }
}
