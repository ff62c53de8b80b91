import FastJSON
public import Foundation
public import MobileSync

/// The SDK's target factories (`newSyncTarget`), over MobileSync's targets.
///
/// The SDK's SOQL factory does not fail: an invalid query fails the sync when it runs. Here a
/// query MobileSync refuses (not SOQL, an aggregate) gives a target that fails the same way, with
/// MobileSync's reason; a valid one gives the `SoqlSyncDownTarget`.
extension SoqlSyncDownTarget {
    /// A SOQL sync down target.
    public static func newSyncTarget(_ query: String) -> any SyncDownTarget {
        newSyncTarget(query, maxBatchSize: 2_000)
    }

    /// A SOQL sync down target fetching at most `maxBatchSize` records a page (200…2,000).
    public static func newSyncTarget(_ query: String, maxBatchSize: Int) -> any SyncDownTarget {
        do {
            return try SoqlSyncDownTarget(query: query, maxBatchSize: maxBatchSize)
        } catch {
            return RefusedSyncDownTarget(json: ["type": "soql", "query": .string(query)], error: error)
        }
    }
}

extension SoslSyncDownTarget {
    /// A SOSL sync down target.
    public static func newSyncTarget(_ query: String) -> SoslSyncDownTarget { SoslSyncDownTarget(query: query) }
}

extension MruSyncDownTarget {
    /// A sync down of the user's most recently used records of `objectType` (field names that
    /// are not strings are left out).
    public static func newSyncTarget(_ objectType: String, fieldlist: [Any]) -> MruSyncDownTarget {
        MruSyncDownTarget(objectType: objectType, fieldlist: fieldlist.compactMap { $0 as? String })
    }
}

extension RefreshSyncDownTarget {
    /// A sync down that refetches the records of `soupName`.
    public static func newSyncTarget(_ soupName: String, objectType: String, fieldlist: [Any]) -> RefreshSyncDownTarget {
        RefreshSyncDownTarget(objectType: objectType, fieldlist: fieldlist.compactMap { $0 as? String }, soupName: soupName)
    }
}

extension MetadataSyncDownTarget {
    /// A sync down of `objectType`'s describe.
    public static func newSyncTarget(_ objectType: String) -> MetadataSyncDownTarget { MetadataSyncDownTarget(objectType: objectType) }
}

extension LayoutSyncDownTarget {
    /// A sync down of a record layout.
    public static func newSyncTarget(
        _ objectAPIName: String, formFactor: String?, layoutType: String?, mode: String?, recordTypeId: String?
    ) -> LayoutSyncDownTarget {
        LayoutSyncDownTarget(
            objectType: objectAPIName, formFactor: formFactor, layoutType: layoutType, mode: mode, recordTypeId: recordTypeId)
    }
}

extension BatchSyncUpTarget {
    /// A composite-batch sync up target, as the SDK's initialiser takes it (nil: the defaults).
    public init(createFieldlist: [String]?, updateFieldlist: [String]?, maxBatchSize: NSNumber?) {
        self.init(createFieldlist: createFieldlist, updateFieldlist: updateFieldlist, maxBatchSize: maxBatchSize?.intValue ?? 25)
    }
}

extension CollectionSyncUpTarget {
    /// An sObject Collections sync up target, as the SDK's initialiser takes it (nil: the defaults).
    public init(createFieldlist: [String]?, updateFieldlist: [String]?, maxBatchSize: NSNumber?) {
        self.init(createFieldlist: createFieldlist, updateFieldlist: updateFieldlist, maxBatchSize: maxBatchSize?.intValue ?? 200)
    }
}

/// A target whose definition MobileSync refused: every run fails with the reason, as the SDK's
/// run of a target the server refuses does.
struct RefusedSyncDownTarget: SyncDownTarget {
    let json: JSONValue
    let reason: String
    var idFieldName: String { "Id" }
    var modificationDateFieldName: String { "LastModifiedDate" }

    init(json: JSONValue, error: any Error) {
        self.json = json
        reason = "\(error)"
    }

    func syncDown(_ sync: inout MobileSync.SyncState, context: SyncContext) async throws {
        throw SyncError.invalidTarget(reason)
    }

    func cleanGhosts(_ sync: MobileSync.SyncState, context: SyncContext) async throws -> Int {
        throw SyncError.invalidTarget(reason)
    }
}
