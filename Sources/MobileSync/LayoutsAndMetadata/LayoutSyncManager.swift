public import SmartStore

/// Record layouts, cached in the store (the SDK's `LayoutSyncManager`): each is fetched from the
/// UI API by a ``LayoutSyncDownTarget`` into the `sfdcLayouts` soup, then read from there, as
/// the ``FetchMode`` says.
///
/// <!-- snippet: Snippets/MobileSyncReference.swift#layouts -->
/// ```swift
/// let layouts = try LayoutSyncManager(syncManager: manager)
/// let layout = try await layouts.fetchLayout(forObjectAPIName: "Account", layoutType: "Compact", fetchMode: .cacheFirst)
/// for item in layout?.sections.flatMap(\.layoutRows).flatMap(\.layoutItems) ?? [] { print(item.label ?? "") }
/// ```
public final class LayoutSyncManager: Sendable {
    /// The soup layouts are cached in (the SDK's).
    public static let soupName = "sfdcLayouts"
    /// The sync manager that fetches layouts.
    public let syncManager: SyncManager
    /// The store layouts are cached in.
    public var smartStore: SmartStore { syncManager.store }
    private let cache: CachedFetch

    /// A manager caching layouts in `syncManager`'s store (the soup is registered if missing).
    public init(syncManager: SyncManager) throws {
        try CachedFetch.prepare(syncManager.store, soupName: Self.soupName)
        self.syncManager = syncManager
        cache = CachedFetch(syncManager: syncManager, soupName: Self.soupName)
    }

    /// The layout of `objectType` for these options, from the cache or the server as `fetchMode`
    /// says; nil only in ``FetchMode/cacheOnly`` mode when the cache has none.
    ///
    /// - Throws: the server fetch's failure: in ``FetchMode/serverOnly`` mode, and in the
    ///   others when the cache has nothing to fall back on.
    public func fetchLayout(
        forObjectAPIName objectType: String, formFactor: String? = nil, layoutType: String? = nil, mode: String? = nil,
        recordTypeId: String? = nil, fetchMode: FetchMode
    ) async throws -> Layout? {
        let target = LayoutSyncDownTarget(
            objectType: objectType, formFactor: formFactor, layoutType: layoutType, mode: mode, recordTypeId: recordTypeId)
        let entry = try await cache.fetch(id: target.entryId, mode: fetchMode, target: target, syncName: "sfdcLayouts:" + target.entryId)
        return entry.map(Layout.init(json:))
    }
}
