public import Foundation
import Locking
public import MobileSync
import SalesforceREST
public import SmartStore

/// The app layer of the SDK's `MobileSyncSDKManager`: the current user, their stores and sync
/// managers (one of each per store file), global stores, and the default config files.
///
/// <!-- snippet: Snippets/MobileSyncSDKCompatReference.swift#sdkManager -->
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

    struct State: Sendable {
        var stores: StoreDirectory
        var resourcesDirectory: URL?
        /// The current user.
        var user: UserAccount?
        /// The signed-in users, in the order they signed in (the current one among them).
        var accounts: [UserAccount] = []
        /// The managers handed out, by store (see `SyncManager/registryKey(_:)`), with the
        /// user each talks for (kept alive until that user is switched away from or logs out).
        var managers: [String: HandedOut] = [:]
        /// The default configs applied this session (`userstore`, `usersyncs`, …).
        var configsApplied: Set<String> = []
    }

    /// A manager handed out: for a user's store (`owner` is the user's ``UserAccount/storeKey``)
    /// or a global one (`global`, with the current user's client).
    struct HandedOut: Sendable {
        var manager: SyncManager
        var owner: String
        var global: Bool
    }

    let state: Locked<State>

    /// A manager keeping stores under `root` (the SDK's layout: `users/<user>/stores/<name>`
    /// and `global/stores/<name>`) and reading default configs from `resourcesDirectory` (the
    /// app bundle's resources on Apple platforms when nil).
    ///
    /// Stores are encrypted, as the SDK's are, with the keys `keyProvider` gives: by default a
    /// random key kept in the Keychain on Apple platforms, and in a file only the user can read
    /// elsewhere (see SmartStore's `PlatformStoreKeyProvider`). Pass `nil` for plaintext stores.
    /// Stores open with `storeOptions`: by default those of this process, so an app extension
    /// gets SmartStore's `StoreOptions.appExtension` (a few MB of cache, suspension handled,
    /// files readable after the first unlock).
    public init(
        root: URL = StoreDirectory.defaultRoot, resourcesDirectory: URL? = nil,
        keyProvider: (any StoreKeyProvider)? = PlatformStoreKeyProvider(), storeOptions: StoreOptions = .forCurrentProcess
    ) {
        let stores = StoreDirectory(root: root, keyProvider: keyProvider, options: storeOptions)
        state = Locked(State(stores: stores, resourcesDirectory: resourcesDirectory ?? Self.bundleResources))
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
    /// when nil), keys from `keyProvider` and connections set up with `storeOptions` (as in
    /// ``init(root:resourcesDirectory:keyProvider:storeOptions:)``).
    public func configure(
        root: URL, resourcesDirectory: URL? = nil, keyProvider: (any StoreKeyProvider)? = PlatformStoreKeyProvider(),
        storeOptions: StoreOptions = .forCurrentProcess
    ) {
        state.withLock { state in
            state.stores = StoreDirectory(root: root, keyProvider: keyProvider, options: storeOptions)
            state.resourcesDirectory = resourcesDirectory ?? Self.bundleResources
        }
    }

    /// The user whose stores and syncs the manager serves, or nil before login.
    public var currentUser: UserAccount? { state.withLock { $0.user } }

    /// The signed-in users, in the order they signed in: the current one and every other one
    /// that ``setCurrentUser(_:)`` made current and that has not logged out since.
    public var userAccounts: [UserAccount] { state.withLock { $0.accounts } }

    /// The current user's store named `name`, created on first use; one instance per file.
    ///
    /// - Throws: `SyncError/invalidSyncState(_:)` when no user is set.
    public func store(named name: String = StoreDirectory.defaultStoreName) throws -> SmartStore {
        let (stores, user) = state.withLock { ($0.stores, $0.user) }
        guard let user else { throw SyncError.invalidSyncState("No current user: call setCurrentUser first") }
        return try stores.userStore(user: user.storeKey, named: name)
    }

    /// The store named `name` of a signed-in user (``userAccounts``), current or not.
    ///
    /// - Throws: `SyncError/invalidSyncState(_:)` when `user` is not signed in.
    public func store(named name: String = StoreDirectory.defaultStoreName, for user: UserAccount) throws -> SmartStore {
        let stores = try state.withLock { state in
            guard state.accounts.contains(where: { $0.storeKey == user.storeKey }) else { throw Self.notSignedIn(user) }
            return state.stores
        }
        return try stores.userStore(user: user.storeKey, named: name)
    }

    /// The global (not user-bound) store named `name`, created on first use.
    public func globalStore(named name: String = StoreDirectory.defaultStoreName) throws -> SmartStore {
        try state.withLock { $0.stores }.globalStore(named: name)
    }

    /// The sync manager of the current user's store named `storeName` (the SDK's
    /// `SyncManager.sharedInstance`), talking to the user's instance with the user's tokens.
    public func syncManager(storeNamed storeName: String = StoreDirectory.defaultStoreName) throws -> SyncManager {
        guard let user = currentUser else { throw SyncError.invalidSyncState("No current user: call setCurrentUser first") }
        return try manager(for: try store(named: storeName, for: user), owner: user, global: false, current: true)
    }

    /// The sync manager of a signed-in user's store named `storeName`, current user or not,
    /// talking with that user's tokens. It runs until that user logs out (a switch to another
    /// user stops only the managers of the user switched away from).
    public func syncManager(storeNamed storeName: String = StoreDirectory.defaultStoreName, for user: UserAccount) throws -> SyncManager {
        try manager(for: try store(named: storeName, for: user), owner: user, global: false)
    }

    /// The sync manager of the global store named `storeName`, with the current user's client.
    public func globalSyncManager(storeNamed storeName: String = StoreDirectory.defaultStoreName) throws -> SyncManager {
        guard let user = currentUser else { throw SyncError.invalidSyncState("No current user: call setCurrentUser first") }
        return try manager(for: try globalStore(named: storeName), owner: user, global: true, current: true)
    }

    /// The manager of `store`, made with `owner`'s client, recorded as handed out for `owner`
    /// (asked for as the current user's when `current`).
    func manager(for store: SmartStore, owner: UserAccount, global: Bool, current: Bool = false) throws -> SyncManager {
        let manager = try SyncManager.shared(for: store, client: owner.client)
        try state.withLock { state in
            // A switch or a logout meanwhile: this manager would talk for a user who is gone, or
            // is no longer the current one it was asked for as.
            guard state.accounts.contains(where: { $0.storeKey == owner.storeKey }),
                !(global || current) || state.user?.storeKey == owner.storeKey
            else {
                throw SyncError.invalidSyncState("The user changed while the sync manager was being made")
            }
            state.managers[SyncManager.registryKey(store)] = HandedOut(manager: manager, owner: owner.storeKey, global: global)
        }
        return manager
    }

    static func notSignedIn(_ user: UserAccount) -> SyncError {
        SyncError.invalidSyncState("The user \(user.userId) of org \(user.orgId) is not signed in: call setCurrentUser first")
    }
}

extension MobileSyncSDKManager {
    /// The sync manager of any store (the SDK's `SyncManager.sharedInstance(store:)`): the one the
    /// store has already, else a new one talking for the signed-in user whose folder holds the
    /// store, or for the current user (a global store, or one outside the manager's folders).
    public func syncManager(for store: SmartStore) throws -> SyncManager {
        if let existing = SyncManager.existing(for: store) { return existing }
        let (root, user, accounts) = state.withLock { ($0.stores.root, $0.user, $0.accounts) }
        guard let path = store.path.map({ URL(fileURLWithPath: $0).standardizedFileURL.path }) else {
            guard let user else { throw SyncError.invalidSyncState("No current user: call setCurrentUser first") }
            return try manager(for: store, owner: user, global: false, current: true)
        }
        let users = root.standardizedFileURL.appendingPathComponent("users").path + "/"
        if path.hasPrefix(users), let key = path.dropFirst(users.count).split(separator: "/").first {
            guard let owner = accounts.first(where: { $0.storeKey == key }) else {
                throw SyncError.invalidSyncState("The store \(path) belongs to a user who is not signed in")
            }
            return try manager(for: store, owner: owner, global: false)
        }
        guard let user else { throw SyncError.invalidSyncState("No current user: call setCurrentUser first") }
        let global = path.hasPrefix(root.standardizedFileURL.appendingPathComponent("global").path + "/")
        return try manager(for: store, owner: user, global: global, current: true)
    }

    /// Takes the managers handed out for the stores whose registry keys `matches` out of the
    /// session and stops them; they are forgotten once their syncs have stopped, or at once when
    /// `now` (their store is being deleted: a new store at that path gets a new manager, while
    /// the old one's last page goes to the removed file).
    /// Returns whether it took any.
    @discardableResult
    func retireManagers(now: Bool = false, matching matches: @Sendable (String) -> Bool) -> Bool {
        let taken = state.withLock { state in
            let taken = state.managers.filter { matches($0.key) }
            for key in taken.keys { state.managers[key] = nil }
            return taken.values.map(\.manager)
        }
        for manager in taken {
            if now {
                SyncManager.retire(manager)
                manager.stop()
            } else {
                SyncManager.retireWhenStopped(manager)
            }
        }
        return !taken.isEmpty
    }
}

extension MobileSyncSDKManager {
    /// The store directory in use.
    var directory: StoreDirectory { state.withLock { $0.stores } }

    /// Deletes the stores named `name` (nil: all) of `user` (nil: the global ones), stopping
    /// their managers first.
    func removeStores(named name: String?, of user: UserAccount?) throws {
        let scope = user.map { "/users/\($0.storeKey)/stores/" } ?? "/global/stores/"
        let tail = name.map { scope + $0 + "/store.sqlite" }
        retireManagers(now: true) { key in tail.map { key.hasSuffix($0) } ?? key.contains(scope) }
        let stores = directory
        switch (name, user) {
        case (let name?, let user?): try stores.removeUserStore(user: user.storeKey, named: name)
        case (nil, let user?): try stores.removeAllUserStores(user: user.storeKey)
        case (let name?, nil): try stores.removeGlobalStore(named: name)
        case (nil, nil): try stores.removeAllGlobalStores()
        }
    }
}
