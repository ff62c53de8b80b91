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
public final class LayoutSyncManager: Sendable, SyncManagerBacked {
    /// The soup layouts are cached in (the SDK's).
    public static let soupName = "sfdcLayouts"
    /// The sync manager that fetches layouts.
    public let syncManager: SyncManager
    /// The store layouts are cached in.
    public var smartStore: SmartStore { syncManager.store }
    private let cache: CachedFetch
    private static let shared = SharedInstances<LayoutSyncManager>()

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

    /// The SDK's form: returns at once and calls `completionBlock` with the request's parts and
    /// the layout, or nil (a failure, or nothing cached).
    public func fetchLayout(
        forObjectAPIName objectType: String, formFactor: String?, layoutType: String?, mode: String?, recordTypeId: String?,
        syncMode: FetchMode,
        completionBlock: @escaping @Sendable (String, String?, String?, String?, String?, Layout?) -> Void
    ) {
        Task {
            let layout = try? await fetchLayout(
                forObjectAPIName: objectType, formFactor: formFactor, layoutType: layoutType, mode: mode, recordTypeId: recordTypeId,
                fetchMode: syncMode)
            completionBlock(objectType, formFactor, layoutType, mode, recordTypeId, layout ?? nil)
        }
    }

    /// The current user's default store's manager (over ``MobileSyncSDKManager/shared``), or nil
    /// without a current user. (The SDK's is not optional.)
    public static func sharedInstance() -> LayoutSyncManager? { sharedInstance(nil, smartStore: nil) }

    /// The manager of a signed-in user's store (nil: the current user; store nil: the default).
    public static func sharedInstance(_ user: UserAccount?, smartStore storeName: String? = nil) -> LayoutSyncManager? {
        shared.instance(user: user, storeName: storeName) { try LayoutSyncManager(syncManager: $0) }
    }

    /// Forgets every shared instance.
    public static func reset() { shared.reset(user: nil) }

    /// Forgets the shared instances of `user`'s stores.
    public static func reset(_ user: UserAccount) { shared.reset(user: user) }
}
