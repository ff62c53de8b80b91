import Foundation
import LocalForceTesting
import MobileSync
import MobileSyncSDKCompat
import SalesforceREST
import SmartStore
import TestLocking

// An app's life on Linux, for `SDKUsersTests`: a LocalForce org, the SDK manager set up from
// default config files, then the template's model on the main thread, whose run loop delivers
// the publishers' values (`.receive(on: RunLoop.main)`). Prints the accounts the model shows,
// one `name|industry|id` per line, and exits 0 when both of the org's accounts arrived.

/// What the setup task reports to the main thread.
final class Outcome: Sendable {
    private let state = Locked<(text: String?, org: TestOrg?)>((nil, nil))

    var value: String? { state.current.text }

    func finish(_ value: String, keeping org: TestOrg? = nil) {
        state.withLock { $0 = (value, org) }
    }
}

let userStore = #"""
    {"soups": [{"soupName": "Account", "indexes": [
      {"path": "Id", "type": "string"}, {"path": "Name", "type": "string"}, {"path": "Industry", "type": "string"},
      {"path": "LastModifiedDate", "type": "string"}, {"path": "__local__", "type": "string"}]}]}
    """#
let userSyncs = #"""
    {"syncs": [{"syncName": "syncDownAccounts", "syncType": "syncDown", "soupName": "Account",
                "target": {"type": "soql", "query": "SELECT Id, Name, Industry, LastModifiedDate FROM Account"},
                "options": {"mergeMode": "OVERWRITE"}}]}
    """#

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sdk-template-app-\(UUID().uuidString)")
let setUp = Outcome()
Task.detached {
    do {
        let org = try await TestOrg.start(transport: .http)
        _ = try await org.localForce.insert([["Name": "Acme", "Industry": "Energy"], ["Name": "Initech"]], of: "Account")
        let resources = folder.appendingPathComponent("resources")
        try FileManager.default.createDirectory(at: resources, withIntermediateDirectories: true)
        try Data(userStore.utf8).write(to: resources.appendingPathComponent("userstore.json"))
        try Data(userSyncs.utf8).write(to: resources.appendingPathComponent("usersyncs.json"))
        let sdk = MobileSyncSDKManager.shared
        sdk.configure(root: folder.appendingPathComponent("root"), resourcesDirectory: resources, keyProvider: nil)
        guard let url = org.baseURL else { throw SyncError.invalidConfig("no URL") }
        try await sdk.setCurrentUser(
            UserAccount(userId: "005A", orgId: "00DA", instanceURL: url, tokenProvider: StaticAccessToken(TestOrg.token)))
        try sdk.setupUserStoreFromDefaultConfig()
        try await sdk.setupUserSyncsFromDefaultConfig()
        setUp.finish("ok", keeping: org)
    } catch {
        setUp.finish("setup failed: \(error)")
    }
}

/// Runs the main run loop until `done` or a minute has passed.
func runMainRunLoop(until done: () -> Bool) {
    let deadline = Date().addingTimeInterval(60)
    while !done() && Date() < deadline { RunLoop.main.run(until: Date().addingTimeInterval(0.01)) }
}

runMainRunLoop { setUp.value != nil }
guard setUp.value == "ok" else {
    print(setUp.value ?? "setup timed out")
    exit(1)
}
let model = SDKTemplateAccountsModel()
model.fetchAccounts()
runMainRunLoop { model.accounts.count == 2 }
for account in model.accounts.sorted(by: { $0.name < $1.name }) { print("\(account.name)|\(account.industry)|\(account.id)") }
try? FileManager.default.removeItem(at: folder)
exit(model.accounts.count == 2 ? 0 : 1)
