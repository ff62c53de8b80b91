import Locking
import MobileSync
import SmartStore

/// A manager working through a sync manager.
protocol SyncManagerBacked: AnyObject, Sendable {
    var syncManager: SyncManager { get }
}

/// The shared layout and metadata managers: one per store, over the store's shared sync manager
/// (a new one when that was replaced: after a user switch or `removeSharedInstance`).
final class SharedInstances<Manager: SyncManagerBacked>: Sendable {
    private let instances = Locked([String: Manager]())

    /// The manager of the store of `user` (nil: the current user) named `storeName` (nil: the
    /// default store), made by `make` on first use; nil without such a signed-in user, or when the
    /// store cannot open.
    func instance(user: UserAccount?, storeName: String?, make: (SyncManager) throws -> Manager) -> Manager? {
        let sdk = MobileSyncSDKManager.shared
        let name = storeName.flatMap { $0.isEmpty ? nil : $0 } ?? StoreDirectory.defaultStoreName
        guard let user = user ?? sdk.currentUser, let syncManager = try? sdk.syncManager(storeNamed: name, for: user) else { return nil }
        let key = SyncManager.registryKey(syncManager.store)
        return instances.withLock { instances in
            if let existing = instances[key], existing.syncManager === syncManager { return existing }
            guard let made = try? make(syncManager) else { return nil }
            instances[key] = made
            return made
        }
    }

    /// Forgets the managers of `user`'s stores (nil: every manager).
    func reset(user: UserAccount?) {
        instances.withLock { instances in
            guard let user else { return instances.removeAll() }
            instances = instances.filter { !$0.key.contains("/users/\(user.storeKey)/stores/") }
        }
    }
}
