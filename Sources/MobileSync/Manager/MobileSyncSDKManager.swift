public import Foundation
import Locking
public import SalesforceREST
public import SmartStore

/// The app layer of the SDK's `MobileSyncSDKManager`: the current user, their stores and sync
/// managers (one of each per store file), global stores, and the default config files.
///
/// ```swift
/// let sdk = MobileSyncSDKManager.shared
/// sdk.configure(root: appSupport, resourcesDirectory: resources)     // on Apple, resources default to the app bundle
/// try await sdk.setCurrentUser(UserAccount(userId: userId, orgId: orgId, instanceURL: instanceURL,
///                                          tokenProvider: tokens))
/// try sdk.setupUserStoreFromDefaultConfig()                          // userstore.json
/// try await sdk.setupUserSyncsFromDefaultConfig()                    // usersyncs.json
/// let manager = try sdk.syncManager()
/// try await manager.reSync(named: "syncDownAccounts")
/// ```
public final class MobileSyncSDKManager: Sendable {
    /// The app's manager.
    public static let shared = MobileSyncSDKManager()

    private struct State: Sendable {
        var stores: StoreDirectory
        var resourcesDirectory: URL?
        var user: UserAccount?
        /// The managers handed out this session, by store (kept alive until the user changes).
        var managers: [String: SyncManager] = [:]
        /// The default configs applied this session (`userstore`, `usersyncs`, …).
        var configsApplied: Set<String> = []
    }

    private let state: Locked<State>

    /// A manager keeping stores under `root` (the SDK's layout: `users/<user>/stores/<name>`
    /// and `global/stores/<name>`) and reading default configs from `resourcesDirectory` (the
    /// app bundle's resources on Apple platforms when nil).
    ///
    /// Stores are encrypted, as the SDK's are, with the keys `keyProvider` gives: by default a
    /// random key kept in the Keychain on Apple platforms, and in a file only the user can read
    /// elsewhere (see SmartStore's `PlatformStoreKeyProvider`). Pass `nil` for plaintext stores.
    public init(
        root: URL = MobileSyncSDKManager.defaultRoot, resourcesDirectory: URL? = nil,
        keyProvider: (any StoreKeyProvider)? = PlatformStoreKeyProvider()
    ) {
        let stores = StoreDirectory(root: root, keyProvider: keyProvider)
        state = Locked(State(stores: stores, resourcesDirectory: resourcesDirectory ?? Self.bundleResources))
    }

    /// Where stores live by default: Application Support on Apple platforms but tvOS, where an
    /// app has no persistent storage of its own: there Caches, which the system may purge when
    /// space runs low (the app then syncs down again; sync up promptly, as what was not synced
    /// goes with it); `$XDG_DATA_HOME/msync` (or `~/.local/share/msync`) elsewhere.
    public static var defaultRoot: URL {
        #if os(tvOS)
            let base =
                FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first
                ?? URL(fileURLWithPath: NSTemporaryDirectory())
            return base.appendingPathComponent("msync")
        #elseif canImport(Darwin)
            let base =
                FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
                ?? URL(fileURLWithPath: NSTemporaryDirectory())
            return base.appendingPathComponent("msync")
        #else
            if let data = ProcessInfo.processInfo.environment["XDG_DATA_HOME"], !data.isEmpty {
                return URL(fileURLWithPath: data).appendingPathComponent("msync")
            }
            return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share/msync")
        #endif
    }

    private static var bundleResources: URL? {
        #if canImport(Darwin)
            Bundle.main.resourceURL
        #else
            nil
        #endif
    }

    /// Moves the manager to other folders (before the first user is set): stores under `root`,
    /// default configs from `resourcesDirectory` (the app bundle's resources on Apple platforms
    /// when nil), keys from `keyProvider` (as in ``init(root:resourcesDirectory:keyProvider:)``).
    public func configure(root: URL, resourcesDirectory: URL? = nil, keyProvider: (any StoreKeyProvider)? = PlatformStoreKeyProvider()) {
        state.withLock { state in
            state.stores = StoreDirectory(root: root, keyProvider: keyProvider)
            state.resourcesDirectory = resourcesDirectory ?? Self.bundleResources
        }
    }

    /// The user whose stores and syncs the manager serves, or nil before login.
    public var currentUser: UserAccount? { state.withLock { $0.user } }

    /// Makes `account` the current user (nil: logged out). When the user changes, every sync
    /// manager handed out this session is stopped (this waits for running syncs to reach their
    /// next page or batch) and retired — the global stores' too, since they talk with the
    /// previous user's client — so the next ``syncManager(storeNamed:)`` or
    /// ``globalSyncManager(storeNamed:)`` makes a new one; the previous user's stores are closed
    /// (the files stay) and a new session begins (the default configs apply again). Setting the
    /// same user again (org, user and community) only replaces the account, for example its token
    /// provider; managers handed out already keep their client.
    public func setCurrentUser(_ account: UserAccount?) async throws {
        let ended: (user: UserAccount, managers: [SyncManager])? = state.withLock { state in
            defer { state.user = account }
            guard let previous = state.user, previous.storeKey != account?.storeKey else {
                if state.user == nil { state.configsApplied = [] }
                return nil
            }
            let managers = Array(state.managers.values)
            state.managers = [:]
            state.configsApplied = []
            return (previous, managers)
        }
        guard let ended else { return }
        for manager in ended.managers {
            SyncManager.retire(manager)
            await manager.stop()
            while await !manager.isStopped { try await Task.sleep(for: .milliseconds(20)) }
        }
        try state.withLock { $0.stores }.closeUserStores(user: ended.user.storeKey)
    }

    /// Logs the current user out: ``setCurrentUser(_:)`` with nil.
    public func logout() async throws { try await setCurrentUser(nil) }

    /// The current user's store named `name`, created on first use; one instance per file.
    ///
    /// - Throws: ``SyncError/invalidSyncState(_:)`` when no user is set.
    public func store(named name: String = StoreDirectory.defaultStoreName) throws -> SmartStore {
        let (stores, user) = state.withLock { ($0.stores, $0.user) }
        guard let user else { throw SyncError.invalidSyncState("No current user: call setCurrentUser first") }
        return try stores.userStore(user: user.storeKey, named: name)
    }

    /// The global (not user-bound) store named `name`, created on first use.
    public func globalStore(named name: String = StoreDirectory.defaultStoreName) throws -> SmartStore {
        try state.withLock { $0.stores }.globalStore(named: name)
    }

    /// The sync manager of the current user's store named `storeName` (the SDK's
    /// `SyncManager.sharedInstance`), talking to the user's instance with the user's tokens.
    public func syncManager(storeNamed storeName: String = StoreDirectory.defaultStoreName) throws -> SyncManager {
        try manager(for: try store(named: storeName))
    }

    /// The sync manager of the global store named `storeName`, with the current user's client.
    public func globalSyncManager(storeNamed storeName: String = StoreDirectory.defaultStoreName) throws -> SyncManager {
        try manager(for: try globalStore(named: storeName))
    }

    private func manager(for store: SmartStore) throws -> SyncManager {
        guard let user = currentUser else { throw SyncError.invalidSyncState("No current user: call setCurrentUser first") }
        let manager = try SyncManager.shared(for: store, client: user.client)
        try state.withLock { state in
            // A user switch meanwhile: this manager talks for the previous user.
            guard state.user?.storeKey == user.storeKey else {
                throw SyncError.invalidSyncState("The current user changed while the sync manager was being made")
            }
            state.managers[SyncManager.registryKey(store)] = manager
        }
        return manager
    }

    // MARK: - Default configs

    /// Registers the soups of `userstore.json` in the current user's default store, once per
    /// user session. Returns nil when it ran already this session or there is no such file;
    /// otherwise what it did (bad entries are skipped and listed, as in the SDK).
    @discardableResult
    public func setupUserStoreFromDefaultConfig() throws -> StoreSetupReport? {
        try setupStore(file: "userstore", store: { try self.store() })
    }

    /// Registers the soups of `globalstore.json` in the default global store, once per session.
    @discardableResult
    public func setupGlobalStoreFromDefaultConfig() throws -> StoreSetupReport? {
        try setupStore(file: "globalstore", store: { try self.globalStore() })
    }

    /// Creates the syncs of `usersyncs.json` in the current user's default store, once per
    /// user session. Returns nil when it ran already this session or there is no such file;
    /// otherwise ``SyncManager/apply(_:)``'s report.
    @discardableResult
    public func setupUserSyncsFromDefaultConfig() async throws -> SyncManager.ConfigReport? {
        try await setupSyncs(file: "usersyncs", manager: { try self.syncManager() })
    }

    /// Creates the syncs of `globalsyncs.json` in the default global store, once per session.
    @discardableResult
    public func setupGlobalSyncsFromDefaultConfig() async throws -> SyncManager.ConfigReport? {
        try await setupSyncs(file: "globalsyncs", manager: { try self.globalSyncManager() })
    }

    /// What a store setup did: the soups registered, and the entries skipped with why.
    public struct StoreSetupReport: Sendable, Equatable {
        /// Soups registered (those existing already are left as they are).
        public var registered: [String]
        /// Entries of the file that were skipped.
        public var rejected: [StoreConfig.Rejection]
    }

    private func setupStore(file: String, store: () throws -> SmartStore) throws -> StoreSetupReport? {
        guard let url = try claimConfig(file) else { return nil }
        do {
            let config = try StoreConfig(contentsOf: url)
            return StoreSetupReport(registered: try store().apply(config), rejected: config.rejected)
        } catch {
            unclaimConfig(file)
            throw error
        }
    }

    private func setupSyncs(file: String, manager: () throws -> SyncManager) async throws -> SyncManager.ConfigReport? {
        guard let url = try claimConfig(file) else { return nil }
        do {
            return try await manager().apply(SyncsConfig(contentsOf: url))
        } catch {
            unclaimConfig(file)
            throw error
        }
    }

    /// A setup that failed (unreadable file, no user) may run again this session.
    private func unclaimConfig(_ name: String) {
        state.withLock { _ = $0.configsApplied.remove(name) }
    }

    /// The config file to apply, marking it applied for this session; nil when it was applied
    /// already or the resources have no such file.
    private func claimConfig(_ name: String) throws -> URL? {
        try state.withLock { state in
            guard !state.configsApplied.contains(name) else { return nil }
            guard let resources = state.resourcesDirectory else {
                throw SyncError.invalidConfig("No resources directory for \(name).json: configure(root:resourcesDirectory:)")
            }
            let url = resources.appendingPathComponent(name + ".json")
            guard FileManager.default.fileExists(atPath: url.path) else { return nil }
            state.configsApplied.insert(name)
            return url
        }
    }
}

/// The signed-in user: who they are, where their org is, and how to get their token: from a
/// login (``init(identity:session:communityId:)``), or filled in by the app.
public struct UserAccount: Sendable {
    /// The user's id (`005…`).
    public var userId: String
    /// The org's id (`00D…`).
    public var orgId: String
    /// The org's instance.
    public var instanceURL: URL
    /// The Experience Cloud site, when the user signed in to one.
    public var communityId: String?
    /// Gives the user's access token, and a new one after a 401.
    public var tokenProvider: any AccessTokenProvider

    /// An account.
    public init(userId: String, orgId: String, instanceURL: URL, communityId: String? = nil, tokenProvider: any AccessTokenProvider) {
        self.userId = userId
        self.orgId = orgId
        self.instanceURL = instanceURL
        self.communityId = communityId
        self.tokenProvider = tokenProvider
    }

    /// The account of a login: the user and org of its identity, renewed by its session.
    ///
    /// ```swift
    /// let credentials = try await oauth.exchange(code: code, for: login)
    /// let account = UserAccount(identity: try await oauth.userIdentity(for: credentials),
    ///                           session: OAuthSession(credentials: credentials, client: oauth))
    /// try await MobileSyncSDKManager.shared.setCurrentUser(account)
    /// ```
    public init(identity: UserIdentity, session: OAuthSession, communityId: String? = nil) {
        self.init(
            userId: identity.userId, orgId: identity.organizationId, instanceURL: identity.instanceURL, communityId: communityId,
            tokenProvider: session)
    }

    /// The folder name of the user's stores: org, user and community, as the SDK separates them.
    var storeKey: String { [orgId, userId, communityId].compactMap { $0 }.joined(separator: "-") }

    /// A client for the user's instance.
    var client: RestClient { RestClient(instanceURL: instanceURL, tokenProvider: tokenProvider) }
}
