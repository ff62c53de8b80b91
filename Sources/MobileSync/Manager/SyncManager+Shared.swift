import Foundation
import Locking
public import SalesforceREST
public import SmartStore

/// A manager the registry points at without keeping it alive. (A struct with a `weak var`:
/// `weak let` needs Swift 6.2, and the package builds with 6.1.)
struct WeakSyncManager: Sendable {
    weak var manager: SyncManager?

    init(_ manager: SyncManager) {
        self.manager = manager
    }
}

extension SyncManager {
    /// The live managers of this process, by store (see ``registryKey(_:)``).
    static let registry = Locked([String: WeakSyncManager]())

    /// A store's file (symbolic links resolved), or the identity of an in-memory store.
    package static func registryKey(_ store: SmartStore) -> String {
        guard let path = store.path else { return "memory:\(UInt(bitPattern: ObjectIdentifier(store).hashValue))" }
        return "file:" + URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// Records `manager` as its store's manager, unless the store has a live one already, and
    /// runs `setUp` (the manager's crash recovery) first, under the same lock: no other manager
    /// of the store can appear meanwhile, and none is handed out before it is set up.
    static func register(_ manager: SyncManager, for store: SmartStore, settingUp setUp: () throws -> Void) throws {
        let key = registryKey(store)
        try registry.withLock { managers in
            managers = managers.filter { $0.value.manager != nil }
            if managers[key]?.manager != nil {
                throw SyncError.invalidSyncState(
                    "The store \(store.path ?? "in memory") has a SyncManager already: use SyncManager.shared(for:client:)")
            }
            try setUp()
            managers[key] = WeakSyncManager(manager)
        }
    }

    /// Forgets `manager` as its store's manager (a user switch retires it): the next
    /// ``shared(for:client:targets:otherProcesses:)`` makes a new one. The retired manager keeps working for
    /// whoever holds it.
    package static func retire(_ manager: SyncManager) {
        let key = registryKey(manager.store)
        registry.withLock { managers in
            if managers[key]?.manager === manager { managers[key] = nil }
        }
    }

    /// The manager of `store`'s file: the one this process has already, else a new one (the
    /// SDK's `sharedInstance`). One manager per store, so no sync runs twice at once and a new
    /// manager never takes another's running syncs for crashed ones.
    ///
    /// - Parameters:
    ///   - store: the store; another `SmartStore` instance on the same file gets the same manager.
    ///   - client: the client of a new manager (an existing one keeps its own).
    ///   - targets: the registry of a new manager; nil: one with the built-in types.
    ///   - otherProcesses: a new manager's policy towards other processes' syncs.
    public static func shared(
        for store: SmartStore, client: RestClient, targets: SyncTargetRegistry? = nil, otherProcesses: OtherProcessPolicy = .default
    ) throws -> SyncManager {
        let key = registryKey(store)
        while true {
            if let existing = registry.withLock({ $0[key]?.manager }) { return existing }
            do {
                return try SyncManager(store: store, client: client, targets: targets, otherProcesses: otherProcesses)
            } catch SyncError.invalidSyncState where registry.withLock({ $0[key]?.manager }) != nil {
                // Another task made the store's manager meanwhile: take it.
                continue
            }
        }
    }
}

extension SyncManager {
    /// The live manager of `store`'s file, if this process has one.
    package static func existing(for store: SmartStore) -> SyncManager? {
        let key = registryKey(store)
        return registry.withLock { $0[key]?.manager }
    }

    /// Stops `manager` and forgets it as its store's manager once its syncs have stopped (until
    /// then ``shared(for:client:targets:otherProcesses:)`` still returns it, so that no second
    /// manager ever runs the store's syncs).
    package static func retireWhenStopped(_ manager: SyncManager) {
        Task {
            manager.stop()
            while !manager.isStopped { try? await Task.sleep(for: .milliseconds(20)) }
            retire(manager)
        }
    }
}
