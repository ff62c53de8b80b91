public import Foundation
import Locking

/// Named stores under one root directory: a user store per user, and global stores.
///
/// Files are laid out as the iOS SDK does: `<root>/<user or global>/stores/<name>/store.sqlite`.
/// A directory hands out one ``SmartStore`` instance per file, so every task shares its pool.
/// With a key provider, every store it opens is encrypted with the key the provider gives, and
/// (on Apple platforms) kept out of device backups: the Keychain keeps its key on this device
/// only. A store whose key is lost (a device restored without the Keychain) throws
/// ``SmartStoreError/wrongKey(path:)`` and is never wiped: remove it
/// (``removeUserStore(user:named:)``) and sync down into a new one.
///
/// <!-- snippet: Snippets/SmartStoreReference.swift#storeDirectory -->
/// ```swift
/// let stores = StoreDirectory(root: appSupport, keyProvider: FileStoreKeyProvider(file: keyFile))
/// let store = try stores.userStore(user: "005xx000001", named: StoreDirectory.defaultStoreName)
/// ```
public final class StoreDirectory: Sendable {
    /// The SDK's default store name.
    public static let defaultStoreName = "defaultStore"

    /// The root directory.
    public let root: URL
    /// Where the keys of the stores come from; `nil` keeps them in plaintext.
    public let keyProvider: (any StoreKeyProvider)?
    /// How the stores' connections are set up: their memory, durability and file protection.
    public let options: StoreOptions
    /// The stores handed out, by file path.
    private let open = Locked([String: SmartStore]())
    /// The key-value stores handed out, by folder.
    private let keyValueStores = Locked([String: KeyValueEncryptedFileStore]())

    /// A directory of stores under `root` (folders are created when a store first opens),
    /// encrypted with the keys `keyProvider` gives, opened with `options`: by default those of
    /// this process (``StoreOptions/appExtension`` in an app extension, whose memory limit is
    /// tens of MB, else ``StoreOptions/default``).
    public init(root: URL, keyProvider: (any StoreKeyProvider)? = nil, options: StoreOptions = .forCurrentProcess) {
        self.root = root
        self.keyProvider = keyProvider
        self.options = options
    }

    /// The store of `user` named `name`, created on first use.
    public func userStore(user: String, named name: String = StoreDirectory.defaultStoreName) throws -> SmartStore {
        try store(at: try storeFolder(scope: try userScope(user), name: name), name: name, user: user)
    }

    /// The global (not user-bound) store named `name`, created on first use.
    public func globalStore(named name: String = StoreDirectory.defaultStoreName) throws -> SmartStore {
        try store(at: try storeFolder(scope: "global", name: name), name: name, user: nil)
    }

    /// Whether the user has a store with this name.
    public func hasUserStore(user: String, named name: String) throws -> Bool {
        FileManager.default.fileExists(
            atPath: try storeFolder(scope: try userScope(user), name: name).appendingPathComponent("store.sqlite").path)
    }

    /// Names of the user's stores.
    public func userStoreNames(user: String) throws -> [String] {
        try names(scope: try userScope(user))
    }

    /// Names of the global stores.
    public func globalStoreNames() throws -> [String] {
        try names(scope: "global")
    }

    /// Deletes a user store (its files); it must not be in use elsewhere.
    public func removeUserStore(user: String, named name: String) throws {
        try remove(try storeFolder(scope: try userScope(user), name: name))
    }

    /// Deletes a global store.
    public func removeGlobalStore(named name: String) throws {
        try remove(try storeFolder(scope: "global", name: name))
    }

    /// Deletes every store of the user.
    public func removeAllUserStores(user: String) throws {
        for name in try userStoreNames(user: user) { try removeUserStore(user: user, named: name) }
    }

    /// Forgets the user's open stores: the next ``userStore(user:named:)`` opens the file again,
    /// and each store closes once nothing else holds it (a user logging out).
    /// Files are kept.
    public func closeUserStores(user: String) throws {
        let prefix = root.appendingPathComponent(try userScope(user)).appendingPathComponent("stores").path + "/"
        open.withLock { open in
            for path in open.keys where path.hasPrefix(prefix) { open.removeValue(forKey: path) }
        }
    }

    /// Deletes every global store.
    public func removeAllGlobalStores() throws {
        for name in try globalStoreNames() { try removeGlobalStore(named: name) }
    }

    // MARK: - Key-value stores

    /// The key-value store of `user` (nil: a global one) named `name`, created on first use
    /// under `<root>/<user or global>/kvstores/<name>`, with the key the provider gives for
    /// `kv_<name>`. One instance per folder.
    ///
    /// - Throws: ``SmartStoreError/keyRequired(path:)`` without a key provider: a key-value
    ///   store is always encrypted.
    public func keyValueStore(user: String?, named name: String) throws -> KeyValueEncryptedFileStore {
        guard KeyValueEncryptedFileStore.isValidName(name) else { throw SmartStoreError.invalidStoreName(name) }
        let parent = try keyValueFolder(user: user)
        let folder = parent.appendingPathComponent(name).path
        return try keyValueStores.withLock { stores in
            if let store = stores[folder] { return store }
            guard let key = try keyProvider?.key(forStore: "kv_" + name, user: user) else {
                throw SmartStoreError.keyRequired(path: folder)
            }
            let store = try KeyValueEncryptedFileStore(parentDirectory: parent, name: name, key: key)
            Self.excludeFromBackup(store.directory)
            stores[folder] = store
            return store
        }
    }

    /// Names of the key-value stores of `user` (nil: the global ones).
    public func keyValueStoreNames(user: String?) throws -> [String] {
        let folder = try keyValueFolder(user: user)
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return entries.filter {
            KeyValueEncryptedFileStore.isValidName($0)
                && FileManager.default.fileExists(atPath: folder.appendingPathComponent($0).appendingPathComponent("salt").path)
        }
        .sorted()
    }

    /// Deletes the key-value store of `user` (nil: a global one) named `name` (nil: all of them).
    ///
    /// - Throws: ``SmartStoreError/invalidStoreName(_:)`` for a name no key-value store can have
    ///   (`..` and the like never reach the file system).
    public func removeKeyValueStores(user: String?, named name: String?) throws {
        if let name, !KeyValueEncryptedFileStore.isValidName(name) { throw SmartStoreError.invalidStoreName(name) }
        let parent = try keyValueFolder(user: user)
        let names = try name.map { [$0] } ?? keyValueStoreNames(user: user)
        for name in names {
            let folder = parent.appendingPathComponent(name)
            keyValueStores.withLock { _ = $0.removeValue(forKey: folder.path) }
            if FileManager.default.fileExists(atPath: folder.path) { try FileManager.default.removeItem(at: folder) }
        }
    }

    private func keyValueFolder(user: String?) throws -> URL {
        root.appendingPathComponent(try user.map(userScope) ?? "global").appendingPathComponent("kvstores")
    }

    private func userScope(_ user: String) throws -> String {
        do {
            try Identifiers.validateStoreName(user)
        } catch {
            throw SmartStoreError.invalidStoreName("user \(user)")
        }
        return "users/" + user
    }

    private func storeFolder(scope: String, name: String) throws -> URL {
        try Identifiers.validateStoreName(name)
        return root.appendingPathComponent(scope).appendingPathComponent("stores").appendingPathComponent(name)
    }

    private func names(scope: String) throws -> [String] {
        let folder = root.appendingPathComponent(scope).appendingPathComponent("stores")
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return entries.filter {
            FileManager.default.fileExists(atPath: folder.appendingPathComponent($0).appendingPathComponent("store.sqlite").path)
        }
        .sorted()
    }

    private func store(at folder: URL, name: String, user: String?) throws -> SmartStore {
        let path = folder.appendingPathComponent("store.sqlite").path
        return try open.withLock { open in
            if let store = open[path] { return store }
            let key = try keyProvider?.key(forStore: name, user: user)
            let store = try SmartStore(path: path, key: key, options: options)
            if key != nil { Self.excludeFromBackup(folder) }
            open[path] = store
            return store
        }
    }

    /// Keeps an encrypted store's folder out of device backups (Apple platforms): its key lives
    /// in the Keychain on this device only, so a store restored to another device could never
    /// be opened there. The store is a copy of the server's records plus what was not synced
    /// yet; after a restore the app syncs down into a new one.
    static func excludeFromBackup(_ folder: URL) {
        #if canImport(Darwin)
            var folder = folder
            var values = URLResourceValues()
            values.isExcludedFromBackup = true
            try? folder.setResourceValues(values)
        #else
            _ = folder
        #endif
    }

    private func remove(_ folder: URL) throws {
        let path = folder.appendingPathComponent("store.sqlite").path
        open.withLock { _ = $0.removeValue(forKey: path) }
        if FileManager.default.fileExists(atPath: folder.path) {
            try FileManager.default.removeItem(at: folder)
        }
    }
}
