import Foundation
public import MobileSync

/// The SDK's `SyncOptions` factories and dictionary form, over MobileSync's value.
extension SyncOptions {
    /// Options of a sync down with this merge mode.
    public static func newSyncOptions(forSyncDown mergeMode: SyncMergeMode) -> SyncOptions {
        SyncOptions(mergeMode: mergeMode.mergeMode)
    }

    /// Options of a sync up sending these fields, with OVERWRITE (field names that are not
    /// strings are left out).
    public static func newSyncOptions(forSyncUp fieldlist: [Any]) -> SyncOptions {
        newSyncOptions(forSyncUp: fieldlist, mergeMode: .overwrite)
    }

    /// Options of a sync up sending these fields, with this merge mode.
    public static func newSyncOptions(forSyncUp fieldlist: [Any], mergeMode: SyncMergeMode) -> SyncOptions {
        SyncOptions(mergeMode: mergeMode.mergeMode, fieldlist: fieldlist.compactMap { $0 as? String })
    }

    /// Options from the SDK's dictionary (`mergeMode`, `fieldlist`), or nil when it is not one.
    public static func new(fromDict dict: [AnyHashable: Any]) -> SyncOptions? {
        (try? FoundationBridge.json(dict)).flatMap { try? SyncOptions(json: $0) }
    }

    /// The options as the SDK's dictionary.
    public func asDict() -> [AnyHashable: Any] { SmartStore.entry(json) }
}
