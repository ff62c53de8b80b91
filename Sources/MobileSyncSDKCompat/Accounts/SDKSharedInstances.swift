import Foundation
public import MobileSync
public import SmartStore

/// The SDK's static store names (`SmartStore.shared(withName:)` and the like) over
/// ``MobileSyncSDKManager/shared``, so that an SDK app's code compiles unchanged. They return nil
/// where the SDK does (no current user, a user not signed in) and also where a store cannot open
/// (a refused name, a wrong key): ``MobileSyncSDKManager``'s own calls throw the reason.
extension SmartStore {
    /// The current user's store named `name`, or nil (see ``MobileSyncSDKManager/store(named:)``).
    public static func shared(withName name: String) -> SmartStore? {
        try? MobileSyncSDKManager.shared.store(named: name)
    }

    /// A signed-in user's store named `name`, or nil (``MobileSyncSDKManager/store(named:for:)``).
    public static func shared(withName name: String, forUserAccount user: UserAccount) -> SmartStore? {
        try? MobileSyncSDKManager.shared.store(named: name, for: user)
    }

    /// The global store named `name`, or nil when it cannot open. (The SDK's is not optional.)
    public static func sharedGlobal(withName name: String) -> SmartStore? {
        try? MobileSyncSDKManager.shared.globalStore(named: name)
    }

    /// Deletes the current user's store named `name`: its sync manager is retired at once and
    /// stopped (a page it is writing goes to the removed file), then the files are removed; the
    /// next `shared(withName:)` makes a new, empty store with a new manager. Returns whether the
    /// store is gone (also when it never existed).
    @discardableResult
    public static func removeShared(withName name: String) -> Bool {
        guard let user = MobileSyncSDKManager.shared.currentUser else { return false }
        return removeShared(withName: name, forUserAccount: user)
    }

    /// Deletes a user's store named `name` (see ``removeShared(withName:)``).
    @discardableResult
    public static func removeShared(withName name: String, forUserAccount user: UserAccount) -> Bool {
        (try? MobileSyncSDKManager.shared.removeStores(named: name, of: user)) != nil
    }

    /// Deletes the global store named `name` (see ``removeShared(withName:)``).
    @discardableResult
    public static func removeSharedGlobal(withName name: String) -> Bool {
        (try? MobileSyncSDKManager.shared.removeStores(named: name, of: nil)) != nil
    }

    /// Deletes every store of the current user (see ``removeShared(withName:)``).
    @discardableResult
    public static func removeAllForCurrentUser() -> Bool {
        guard let user = MobileSyncSDKManager.shared.currentUser else { return false }
        return removeAll(forUserAccount: user)
    }

    /// Deletes every store of a user (see ``removeShared(withName:)``).
    @discardableResult
    public static func removeAll(forUserAccount user: UserAccount) -> Bool {
        (try? MobileSyncSDKManager.shared.removeStores(named: nil, of: user)) != nil
    }

    /// Deletes every global store (see ``removeShared(withName:)``).
    @discardableResult
    public static func removeAllGlobal() -> Bool {
        (try? MobileSyncSDKManager.shared.removeStores(named: nil, of: nil)) != nil
    }

    /// The names of the current user's stores (none without a current user).
    public static var allStoreNames: [String] {
        guard let user = MobileSyncSDKManager.shared.currentUser else { return [] }
        return (try? MobileSyncSDKManager.shared.directory.userStoreNames(user: user.storeKey)) ?? []
    }

    /// The names of the global stores.
    public static var allGlobalStoreNames: [String] {
        (try? MobileSyncSDKManager.shared.directory.globalStoreNames()) ?? []
    }

    /// Whether a global store named `name` exists (Android's `hasGlobalSmartStore`).
    public static func hasGlobalStore(withName name: String) -> Bool {
        allGlobalStoreNames.contains(name)
    }
}

/// The SDK's `SyncManager.sharedInstance` family over ``MobileSyncSDKManager/shared``.
extension SyncManager {
    /// The manager of `store` (``MobileSyncSDKManager/syncManager(for:)``), or nil.
    public static func sharedInstance(store: SmartStore) -> SyncManager? {
        try? MobileSyncSDKManager.shared.syncManager(for: store)
    }

    /// The manager of a signed-in user's default store, or nil. (The SDK's is not optional.)
    public static func sharedInstance(forUserAccount user: UserAccount) -> SyncManager? {
        sharedInstance(named: nil, forUserAccount: user)
    }

    /// The manager of a signed-in user's store named `storeName` (nil or empty: the default
    /// store), or nil. (The SDK's is not optional.)
    public static func sharedInstance(named storeName: String?, forUserAccount user: UserAccount) -> SyncManager? {
        let name = storeName.flatMap { $0.isEmpty ? nil : $0 } ?? StoreDirectory.defaultStoreName
        return try? MobileSyncSDKManager.shared.syncManager(storeNamed: name, for: user)
    }

    /// Stops the managers of every store of `user` and forgets them once their syncs have
    /// stopped: the next `sharedInstance` after that makes a new one. Until then it returns the
    /// stopping manager, which refuses new syncs (`SyncError/managerStopped(_:)`): a second
    /// manager never runs a store's syncs beside the first (the SDK only drops its reference).
    public static func removeSharedInstance(_ user: UserAccount) {
        MobileSyncSDKManager.shared.retireManagers { $0.contains("/users/\(user.storeKey)/stores/") }
    }

    /// Stops the manager of a user's store named `storeName` (nil: the default store) and
    /// forgets it (see ``removeSharedInstance(_:)``).
    public static func removeSharedInstance(named storeName: String?, forUserAccount user: UserAccount) {
        let name = storeName.flatMap { $0.isEmpty ? nil : $0 } ?? StoreDirectory.defaultStoreName
        MobileSyncSDKManager.shared.retireManagers { $0.hasSuffix("/users/\(user.storeKey)/stores/\(name)/store.sqlite") }
    }

    /// Stops the manager of `store` and forgets it (see ``removeSharedInstance(_:)``).
    public static func removeSharedInstance(store: SmartStore) {
        let key = registryKey(store)
        // A manager made outside `MobileSyncSDKManager` (`shared(for:client:)`) is retired too.
        if !MobileSyncSDKManager.shared.retireManagers(matching: { $0 == key }), let manager = existing(for: store) {
            retireWhenStopped(manager)
        }
    }

    /// Stops every manager ``MobileSyncSDKManager/shared`` handed out and forgets them.
    public static func removeSharedInstances() {
        MobileSyncSDKManager.shared.retireManagers { _ in true }
    }
}

/// The SDK's static key-value store names over ``MobileSyncSDKManager/shared``: stores under its
/// root, keyed by its key provider (nil without one, as a key-value store is always encrypted).
extension KeyValueEncryptedFileStore {
    /// The current user's key-value store named `name`, created on first use, or nil.
    public static func shared(withName name: String) -> KeyValueEncryptedFileStore? {
        guard let user = MobileSyncSDKManager.shared.currentUser else { return nil }
        return shared(withName: name, forUserAccount: user)
    }

    /// A signed-in user's key-value store named `name`, or nil.
    public static func shared(withName name: String, forUserAccount user: UserAccount) -> KeyValueEncryptedFileStore? {
        guard MobileSyncSDKManager.shared.userAccounts.contains(where: { $0.storeKey == user.storeKey }) else { return nil }
        return try? MobileSyncSDKManager.shared.directory.keyValueStore(user: user.storeKey, named: name)
    }

    /// The global key-value store named `name`, or nil.
    public static func sharedGlobal(withName name: String) -> KeyValueEncryptedFileStore? {
        try? MobileSyncSDKManager.shared.directory.keyValueStore(user: nil, named: name)
    }

    /// The names of the current user's key-value stores.
    public static func allNames() -> [String] {
        guard let user = MobileSyncSDKManager.shared.currentUser else { return [] }
        return (try? MobileSyncSDKManager.shared.directory.keyValueStoreNames(user: user.storeKey)) ?? []
    }

    /// The names of the global key-value stores.
    public static func allGlobalNames() -> [String] {
        (try? MobileSyncSDKManager.shared.directory.keyValueStoreNames(user: nil)) ?? []
    }

    /// The names of a signed-in user's key-value stores.
    public static func allNames(forUserAccount user: UserAccount) -> [String] {
        (try? MobileSyncSDKManager.shared.directory.keyValueStoreNames(user: user.storeKey)) ?? []
    }

    /// Deletes the current user's key-value store named `name`.
    public static func removeShared(withName name: String) {
        guard let user = MobileSyncSDKManager.shared.currentUser else { return }
        removeShared(withName: name, forUserAccount: user)
    }

    /// Deletes a user's key-value store named `name`.
    public static func removeShared(withName name: String, forUserAccount user: UserAccount) {
        try? MobileSyncSDKManager.shared.directory.removeKeyValueStores(user: user.storeKey, named: name)
    }

    /// Deletes every key-value store of the current user.
    public static func removeAllForCurrentUser() {
        guard let user = MobileSyncSDKManager.shared.currentUser else { return }
        removeAll(forUserAccount: user)
    }

    /// Deletes every key-value store of a user.
    public static func removeAll(forUserAccount user: UserAccount) {
        try? MobileSyncSDKManager.shared.directory.removeKeyValueStores(user: user.storeKey, named: nil)
    }

    /// Deletes every global key-value store.
    public static func removeAllGlobal() {
        try? MobileSyncSDKManager.shared.directory.removeKeyValueStores(user: nil, named: nil)
    }

    /// Deletes the global key-value store named `name`.
    public static func removeSharedGlobal(withName name: String) {
        try? MobileSyncSDKManager.shared.directory.removeKeyValueStores(user: nil, named: name)
    }
}
