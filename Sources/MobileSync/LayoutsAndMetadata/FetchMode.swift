/// Where ``LayoutSyncManager`` and ``MetadataSyncManager`` look first (the SDK's `FetchMode`).
public enum FetchMode: Sendable, Hashable {
    /// The cache only: nil when it has nothing.
    case cacheOnly
    /// The cache, then the server when the cache has nothing (the answer is cached).
    case cacheFirst
    /// The server (the answer is cached), then the cache when the server cannot answer. The
    /// SDK documents that fallback but never calls back when the sync fails; here it happens.
    case serverFirst
    /// The server only (the answer is cached); its failure is the answer.
    case serverOnly
}
