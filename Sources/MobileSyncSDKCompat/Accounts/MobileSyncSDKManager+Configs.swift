import Foundation
public import MobileSync
public import SmartStore

extension MobileSyncSDKManager {
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
    /// otherwise `SyncManager/apply(_:replacingDefinitions:)`'s report.
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
