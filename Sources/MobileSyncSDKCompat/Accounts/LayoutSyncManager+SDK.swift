public import MobileSync

/// The SDK's forms of `LayoutSyncManager`: the completion-block fetch and the shared instances over
/// ``MobileSyncSDKManager/shared``.
extension LayoutSyncManager: SyncManagerBacked {
    private static let sharedInstances = SharedInstances<LayoutSyncManager>()

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
        sharedInstances.instance(user: user, storeName: storeName) { try LayoutSyncManager(syncManager: $0) }
    }

    /// Forgets every shared instance.
    public static func reset() { sharedInstances.reset(user: nil) }

    /// Forgets the shared instances of `user`'s stores.
    public static func reset(_ user: UserAccount) { sharedInstances.reset(user: user) }
}
