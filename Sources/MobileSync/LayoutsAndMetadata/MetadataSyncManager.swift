public import SmartStore

/// Object describes, cached in the store (the SDK's `MetadataSyncManager`): each is fetched by a
/// ``MetadataSyncDownTarget`` into the `sfdcMetadata` soup, then read from there, as the
/// ``FetchMode`` says.
///
/// <!-- snippet: Snippets/MobileSyncReference.swift#metadata -->
/// ```swift
/// let metadata = try MetadataSyncManager(syncManager: manager)
/// let account = try await metadata.fetchMetadata(forObject: "Account", fetchMode: .cacheFirst)
/// let fields = account?.fieldNames  // ["Id", "Name", …]
/// ```
public final class MetadataSyncManager: Sendable {
    /// The soup describes are cached in (the SDK's).
    public static let soupName = "sfdcMetadata"
    /// The sync manager that fetches describes.
    public let syncManager: SyncManager
    /// The store describes are cached in.
    public var smartStore: SmartStore { syncManager.store }
    private let cache: CachedFetch

    /// A manager caching describes in `syncManager`'s store (the soup is registered if missing).
    public init(syncManager: SyncManager) throws {
        try CachedFetch.prepare(syncManager.store, soupName: Self.soupName)
        self.syncManager = syncManager
        cache = CachedFetch(syncManager: syncManager, soupName: Self.soupName)
    }

    /// The describe of `objectType`, from the cache or the server as `fetchMode` says (see
    /// ``LayoutSyncManager/fetchLayout(forObjectAPIName:formFactor:layoutType:mode:recordTypeId:fetchMode:)``).
    public func fetchMetadata(forObject objectType: String, fetchMode: FetchMode) async throws -> Metadata? {
        let entry = try await cache.fetch(
            id: objectType, mode: fetchMode, target: MetadataSyncDownTarget(objectType: objectType), syncName: "sfdcMetadata:" + objectType)
        return entry.map(Metadata.init(json:))
    }
}
