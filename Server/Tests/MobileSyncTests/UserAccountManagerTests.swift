import FastJSON
import Foundation
import MobileSync
import MobileSyncSDKCompat
import SalesforceREST
import SmartStore
import TestLocking
import Testing

/// The SDK's account layer: switching users and logging out, with its notifications.
@Suite struct UserAccountManagerTests {
    /// The notifications an account manager posts, in order.
    final class Posted {
        let names = Locked<[(Notification.Name, [String: String])]>([])
        private var observers: [any NSObjectProtocol] = []

        init(from accounts: UserAccountManager) {
            let names = [
                UserAccountManager.willSwitchUser, UserAccountManager.didSwitchUser, UserAccountManager.willLogoutUser,
                UserAccountManager.didLogoutUser,
            ]
            for name in names {
                let observer = NotificationCenter.default.addObserver(forName: name, object: accounts, queue: nil) {
                    [names = self.names] note in
                    var users: [String: String] = [:]
                    for (key, value) in note.userInfo ?? [:] { users["\(key)"] = (value as? UserAccount)?.userId ?? "\(type(of: value))" }
                    names.withLock { $0.append((note.name, users)) }
                }
                observers.append(observer)
            }
        }

        func remove() { for observer in observers { NotificationCenter.default.removeObserver(observer) } }
    }

    static func account(_ user: String) -> UserAccount {
        UserAccount(
            userId: user, orgId: "00DA", instanceURL: URL(fileURLWithPath: "/unused"), tokenProvider: StaticAccessToken("unused"))
    }

    @Test(.timeLimit(.minutes(1))) func switchingAndLoggingOutAsTheSDK() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("accounts-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let sdk = MobileSyncSDKManager(root: folder, keyProvider: nil)
        let accounts = UserAccountManager(sdk: sdk)
        let posted = Posted(from: accounts)
        defer { posted.remove() }
        let (alice, bob) = (Self.account("005A"), Self.account("005B"))

        accounts.switchToUserAccount(alice)
        #expect(accounts.currentUserAccount?.userId == "005A")
        let first = posted.names.current
        #expect(first.map(\.0) == [UserAccountManager.willSwitchUser, UserAccountManager.didSwitchUser])
        #expect(first.first?.1 == [UserAccountManager.userInfoFromUserKey: "NSNull", UserAccountManager.userInfoToUserKey: "005A"])
        let aliceStore = try sdk.store()
        try aliceStore.registerSoup("accounts", indexSpecs: [IndexSpec("Id", .string)])
        _ = try await aliceStore.createLocally(["Name": "Not synced yet"], objectType: "Account", in: "accounts")
        let aliceFile = try #require(aliceStore.path)

        accounts.currentUserAccount = bob
        #expect(accounts.userAccounts()?.map(\.userId) == ["005A", "005B"] && sdk.currentUser?.userId == "005B")
        #expect(
            posted.names.current.last?.1 == [UserAccountManager.userInfoFromUserKey: "005A", UserAccountManager.userInfoToUserKey: "005B"])

        // Alice logs out as in the SDK: gone from the accounts at once, her store removed,
        // then didLogoutUser.
        accounts.logout(alice)
        #expect(accounts.userAccounts()?.map(\.userId) == ["005B"] && posted.names.current.last?.0 == UserAccountManager.willLogoutUser)
        while posted.names.current.last?.0 != UserAccountManager.didLogoutUser { try await Task.sleep(for: .milliseconds(10)) }
        #expect(posted.names.current.last?.1 == [UserAccountManager.userInfoAccountKey: "005A"])
        #expect(!FileManager.default.fileExists(atPath: aliceFile))

        // The current user: none left.
        accounts.logout()
        #expect(accounts.currentUserAccount == nil && accounts.userAccounts()?.isEmpty == true)
        while posted.names.current.last?.0 != UserAccountManager.didLogoutUser || posted.names.current.count < 8 {
            try await Task.sleep(for: .milliseconds(10))
        }
        accounts.logout() // nobody to log out: nothing posted
        #expect(posted.names.current.count == 8)
    }
}
