import Foundation
public import SmartStore

/// Adopting the stores the Mobile SDK kept: an app that moves over keeps what it had offline,
/// edits not synced yet included.
extension MobileSyncSDKManager {
    /// Copies `user`'s stores from the SDK's folders (``SDKStoreLocation``) into this
    /// manager's, re-keyed from the SDK's key (`sdkKey`; nil for stores the SDK kept in
    /// plaintext) to this manager's, their data unchanged: soups, records with their
    /// `__local__` edits, and syncs (`syncs_soup`), which then run as they would have in the SDK.
    /// Returns the names of the stores adopted.
    ///
    /// The SDK's files are left as they are (remove them once the app is satisfied). A store is
    /// copied, re-keyed and opened aside, then moved into place: one that fails leaves nothing
    /// behind, and the stores adopted before it stay; what a crash left aside is removed by the
    /// next adoption.
    ///
    /// - Throws: `SmartStoreError.wrongKey(path:)` when `sdkKey` does not open a store,
    ///   ``SDKStoreError/storeExists(name:)`` when the user has a store of that name here
    ///   already, `SyncError.invalidSyncState(_:)` when `user` is not signed in.
    @discardableResult
    public func adoptSDKStores(of user: UserAccount, from location: SDKStoreLocation, sdkKey: StoreKey?) throws -> [String] {
        guard userAccounts.contains(where: { $0.storeKey == user.storeKey }) else { throw Self.notSignedIn(user) }
        let stores = directory
        let target = stores.root.appendingPathComponent("users").appendingPathComponent(user.storeKey).appendingPathComponent("stores")
        return try adopt(from: location.userStores(of: user), into: target, sdkKey: sdkKey) { name in
            (try stores.hasUserStore(user: user.storeKey, named: name), try stores.keyProvider?.key(forStore: name, user: user.storeKey))
        }
    }

    /// Copies the SDK's global stores into this manager's global stores, as
    /// ``adoptSDKStores(of:from:sdkKey:)`` does a user's.
    @discardableResult
    public func adoptSDKGlobalStores(from location: SDKStoreLocation, sdkKey: StoreKey?) throws -> [String] {
        let stores = directory
        let target = stores.root.appendingPathComponent("global").appendingPathComponent("stores")
        return try adopt(from: location.globalStores, into: target, sdkKey: sdkKey) { name in
            (try stores.globalStoreNames().contains(name), try stores.keyProvider?.key(forStore: name, user: nil))
        }
    }

    /// Adopts every store under `source` into `target`; `lookup` says whether a store of that
    /// name exists here and gives its key (checking the name).
    private func adopt(
        from source: URL, into target: URL, sdkKey: StoreKey?, lookup: (String) throws -> (exists: Bool, key: StoreKey?)
    ) throws -> [String] {
        Self.sweepAside(in: target.deletingLastPathComponent())
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: source.path)) ?? []).filter {
            FileManager.default.fileExists(atPath: source.appendingPathComponent($0).appendingPathComponent("store.sqlite").path)
        }
        var adopted: [String] = []
        for name in names.sorted() {
            let (exists, key) = try lookup(name)
            guard !exists else { throw SDKStoreError.storeExists(name: name) }
            try Self.adoptStore(from: source.appendingPathComponent(name), to: target.appendingPathComponent(name), from: sdkKey, to: key)
            adopted.append(name)
        }
        return adopted
    }

    /// Removes what an adoption cut short by a crash left aside in `folder`.
    private static func sweepAside(in folder: URL) {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for entry in entries where entry.hasPrefix(".adopting-") {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(entry))
        }
    }

    /// Copies one store's folder aside, re-keys the copy, opens it once, then moves it into place.
    private static func adoptStore(from folder: URL, to destination: URL, from oldKey: StoreKey?, to newKey: StoreKey?) throws {
        let files = FileManager.default
        // Aside beside the `stores` folder, where no listing of stores sees it.
        let aside = destination.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
            ".adopting-\(UUID().uuidString)")
        try files.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        try files.copyItem(at: folder, to: aside)
        do {
            let path = aside.appendingPathComponent("store.sqlite").path
            switch (oldKey, newKey) {
            case (let old?, let new?): try SmartStore.changeKey(ofStoreAt: path, from: old, to: new)
            case (let old?, nil):
                let plain = path + ".plain"
                try SmartStore.exportDecrypted(storeAt: path, key: old, to: plain)
                try files.removeItem(atPath: path)
                try files.moveItem(atPath: plain, toPath: path)
            case (nil, let new?): try SmartStore.encrypt(storeAt: path, with: new)
            case (nil, nil): break
            }
            try SmartStore(path: path, key: newKey).close()
            try files.moveItem(at: aside, to: destination)
        } catch {
            try? files.removeItem(at: aside)
            throw error
        }
    }
}

/// Why a store of the Mobile SDK could not be adopted.
public enum SDKStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A store of this name exists here already: it is never overwritten.
    case storeExists(name: String)

    /// What went wrong, in words.
    public var description: String {
        switch self {
        case .storeExists(let name): "A store named \(name) exists here already: it is never overwritten by the SDK's"
        }
    }
}
