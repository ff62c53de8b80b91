public import MobileSync

/// The SDK's forms of `MetadataSyncManager`: the completion-block fetch and the shared instances over
/// ``MobileSyncSDKManager/shared``.
extension MetadataSyncManager: SyncManagerBacked {
    private static let sharedInstances = SharedInstances<MetadataSyncManager>()

    /// The SDK's form: returns at once and calls `completionBlock` with the describe, or nil (a
    /// failure, or nothing cached).
    public func fetchMetadata(forObject objectType: String, mode: FetchMode, completionBlock: @escaping @Sendable (Metadata?) -> Void) {
        Task {
            let metadata = try? await fetchMetadata(forObject: objectType, fetchMode: mode)
            completionBlock(metadata ?? nil)
        }
    }

    /// The current user's default store's manager (over ``MobileSyncSDKManager/shared``), or nil
    /// without a current user. (The SDK's is not optional.)
    public static func sharedInstance() -> MetadataSyncManager? { sharedInstance(nil, smartStore: nil) }

    /// The manager of a signed-in user's store (nil: the current user; store nil: the default).
    public static func sharedInstance(_ user: UserAccount?, smartStore storeName: String? = nil) -> MetadataSyncManager? {
        sharedInstances.instance(user: user, storeName: storeName) { try MetadataSyncManager(syncManager: $0) }
    }

    /// Forgets every shared instance.
    public static func reset() { sharedInstances.reset(user: nil) }

    /// Forgets the shared instances of `user`'s stores.
    public static func reset(_ user: UserAccount) { sharedInstances.reset(user: user) }
}
