// The examples in MobileSyncSDKCompat's doc comments (the symbol reference).
import Foundation
import MobileSyncSDKCompat
import SalesforceREST
import SmartStore

#if canImport(Combine)
    import Combine
#else
    import OpenCombine
#endif

func show(_ rows: [[String?]]) { print(rows) }

func queryingTheSDKWay(store: SmartStore) throws {
    // snippet.sdkJSON
    let fromSDK = try QuerySpec(sdkJSON: ["queryType": "range", "indexPath": "Name", "beginKey": "A",
                                          "order": "descending", "pageSize": 25], soupName: "accounts")
    let queryType = fromSDK.sdkJSON["queryType"]  // "range"
    // snippet.end
    print(queryType ?? nil)
    // snippet.sdkQuery
    if case .success(let rows) = store.query("select {Account:Name}, {Account:Industry} from {Account}") {
        let names = rows.map { ($0 as? [String?])?.first ?? nil }
        // snippet.hide
        print(names)
        // snippet.show
    }
    // snippet.end
}

final class SDKAccountsModel {
    let store: SmartStore
    var cancellable: AnyCancellable?

    init(store: SmartStore) {
        self.store = store
    }

    func loadTheSDKWay() {
        // snippet.sdkPublisher
        cancellable = store.publisher(for: "select {Account:Name} from {Account}")
            .receive(on: RunLoop.main)
            .sink(receiveCompletion: { _ in }, receiveValue: { rows in show(rows as? [[String?]] ?? []) })
        // snippet.end
    }
}

final class AccountsListModel {
    let manager: SyncManager
    var cancellable: AnyCancellable?

    init(manager: SyncManager) {
        self.manager = manager
    }

    func loadFromSmartStore() {}

    func sync() {
        // snippet.publisher
        cancellable = manager.publisher(for: "syncDownAccounts")
            .receive(on: RunLoop.main)
            .sink(receiveCompletion: { _ in }, receiveValue: { _ in self.loadFromSmartStore() })
        // snippet.end
    }
}

func sdkManager(appSupport: URL, resources: URL, userId: String, orgId: String, instanceURL: URL, tokens: any AccessTokenProvider)
    async throws
{
    // snippet.sdkManager
    let sdk = MobileSyncSDKManager.shared
    sdk.configure(root: appSupport, resourcesDirectory: resources)     // on Apple, resources default to the app bundle
    try await sdk.setCurrentUser(UserAccount(userId: userId, orgId: orgId, instanceURL: instanceURL,
                                             tokenProvider: tokens))
    try sdk.setupUserStoreFromDefaultConfig()                          // userstore.json
    try await sdk.setupUserSyncsFromDefaultConfig()                    // usersyncs.json
    let manager = try sdk.syncManager()
    try await manager.reSync(named: "syncDownAccounts")
    // snippet.end
}

func userAccount(oauth: OAuthClient, code: String, login: AuthorizationRequest) async throws {
    // snippet.userAccount
    let credentials = try await oauth.exchange(code: code, for: login)
    let account = UserAccount(identity: try await oauth.userIdentity(for: credentials),
                              session: OAuthSession(credentials: credentials, client: oauth))
    try await MobileSyncSDKManager.shared.setCurrentUser(account)
    // snippet.end
}

final class AccountsScreen {
    var observer: (any NSObjectProtocol)?

    func signOut(account: UserAccount) {
        // snippet.userAccountManager
        let accounts = UserAccountManager.shared
        accounts.switchToUserAccount(account)
        let store = SmartStore.shared(withName: SmartStore.defaultStoreName)
        observer = NotificationCenter.default.addObserver(forName: UserAccountManager.didLogoutUser, object: nil, queue: nil) { _ in
            print("signed out")
        }
        accounts.logout() // the current user: stores removed, as in the SDK
        // snippet.end
        print(store as Any)
    }
}

func registeringTheSDKWay(store: SmartStore) throws {
    // snippet.soupIndex
    let indices = [SoupIndex(path: "Id", indexType: kSoupIndexTypeString, columnName: nil)!,
                   SoupIndex(path: kSyncTargetLocal, indexType: kSoupIndexTypeString, columnName: nil)!]
    try store.registerSoup(withName: "accounts", withIndices: indices)
    // snippet.end
}

func readingAStateTheSDKWay(store: SmartStore) {
    // snippet.syncStateClass
    if let sync = SyncState.byName("syncDownAccounts", store: store), sync.isDone() {
        print(sync.syncId, SyncState.syncStatus(toString: sync.status), sync.asDict())
    }
    // snippet.end
}
