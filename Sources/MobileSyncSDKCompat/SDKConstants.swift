public import Foundation
import MobileSync
public import SmartStore

// The SDK's exported constants, with the SDK's names and values, so that an SDK app's index
// specs, query specs and record checks compile unchanged. Each is the core's own value.

// MARK: - Index specs (SmartStore's `SFSoupIndex`)

/// The key of an index spec's path (`"path"`).
public let kSoupIndexPath = "path"
/// The key of an index spec's type (`"type"`).
public let kSoupIndexType = "type"
/// A string index (`"string"`).
public let kSoupIndexTypeString = SoupIndexType.string.rawValue
/// An integer index (`"integer"`).
public let kSoupIndexTypeInteger = SoupIndexType.integer.rawValue
/// A floating-point index (`"floating"`).
public let kSoupIndexTypeFloating = SoupIndexType.floating.rawValue
/// A full-text index (`"full_text"`).
public let kSoupIndexTypeFullText = SoupIndexType.fullText.rawValue
/// An index on a JSON1 expression, with no column of its own (`"json1"`).
public let kSoupIndexTypeJSON1 = SoupIndexType.json1.rawValue

// MARK: - Query specs (SmartStore's `SFQuerySpec`)

/// Ascending order (`"ascending"`).
public let kQuerySpecSortOrderAscending = QuerySpec.Order.ascending.rawValue
/// Descending order (`"descending"`).
public let kQuerySpecSortOrderDescending = QuerySpec.Order.descending.rawValue
/// An exact query (`"exact"`).
public let kQuerySpecTypeExact = QuerySpec.Kind.exact.rawValue
/// A range query (`"range"`).
public let kQuerySpecTypeRange = QuerySpec.Kind.range.rawValue
/// A like query (`"like"`).
public let kQuerySpecTypeLike = QuerySpec.Kind.like.rawValue
/// A full-text match query (`"match"`).
public let kQuerySpecTypeMatch = QuerySpec.Kind.match.rawValue
/// A Smart SQL query (`"smart"`).
public let kQuerySpecTypeSmart = QuerySpec.Kind.smart.rawValue
/// The key of a query spec's type (`"queryType"`).
public let kQuerySpecParamQueryType = "queryType"
/// The key of a query spec's selected paths (`"selectPaths"`).
public let kQuerySpecParamSelectPaths = "selectPaths"
/// The key of a query spec's index path (`"indexPath"`).
public let kQuerySpecParamIndexPath = "indexPath"
/// The key of a query spec's order path (`"orderPath"`).
public let kQuerySpecParamOrderPath = "orderPath"
/// The key of a query spec's order (`"order"`).
public let kQuerySpecParamOrder = "order"
/// The key of a query spec's page size (`"pageSize"`).
public let kQuerySpecParamPageSize = "pageSize"
/// The key of an exact or match query's key (`"matchKey"`).
public let kQuerySpecParamMatchKey = "matchKey"
/// The key of a range query's lower bound (`"beginKey"`).
public let kQuerySpecParamBeginKey = "beginKey"
/// The key of a range query's upper bound (`"endKey"`).
public let kQuerySpecParamEndKey = "endKey"
/// The key of a like query's pattern (`"likeKey"`).
public let kQuerySpecParamLikeKey = "likeKey"
/// The key of a smart query's Smart SQL (`"smartSql"`).
public let kQuerySpecParamSmartSql = "smartSql"
/// The SDK's page size when a query spec gives none (10).
public let kQuerySpecDefaultPageSize = UInt(QuerySpec.sdkDefaultPageSize)

// MARK: - Sync targets (MobileSync's `SFSyncTarget`)

/// Whether a record has a local change to sync up (`"__local__"`).
public let kSyncTargetLocal = LocalFields.local
/// Whether a record was created locally (`"__locally_created__"`).
public let kSyncTargetLocallyCreated = LocalFields.locallyCreated
/// Whether a record was updated locally (`"__locally_updated__"`).
public let kSyncTargetLocallyUpdated = LocalFields.locallyUpdated
/// Whether a record was deleted locally (`"__locally_deleted__"`).
public let kSyncTargetLocallyDeleted = LocalFields.locallyDeleted
/// The id of the sync that last wrote a record (`"__sync_id__"`).
public let kSyncTargetSyncId = LocalFields.syncId
/// The server's answer to a record's last failed sync up (`"__last_error__"`).
public let kSyncTargetLastError = LocalFields.lastError

// MARK: - Records (MobileSync's `SFMobileSyncConstants`)

/// A record's id field (`"Id"`).
public let kId = "Id"
/// A record's name field (`"Name"`).
public let kName = "Name"
/// A record's modification date field (`"LastModifiedDate"`).
public let kLastModifiedDate = "LastModifiedDate"
/// A record's attributes (`"attributes"`).
public let kAttributes = "attributes"
/// The path of a record's object type (`"attributes.type"`).
public let kObjectTypeField = "attributes.type"
/// The records of a query response (`"records"`).
public let kResponseRecords = "records"
/// The total size of a query response (`"totalSize"`).
public let kResponseTotalSize = "totalSize"
/// The next page of a query response (`"nextRecordsUrl"`).
public let kResponseNextRecordsUrl = "nextRecordsUrl"

extension SmartStore {
    /// The field of an entry's id in its soup (`"_soupEntryId"`; the SDK's `SOUP_ENTRY_ID`).
    public static let soupEntryId = "_soupEntryId"
    /// The field of an entry's last modification time (`"_soupLastModifiedDate"`).
    public static let lastModifiedDate = "_soupLastModifiedDate"
}

extension SmartStore {
    /// The error domain of the SDK's SmartStore errors (`"com.salesforce.smartstore.error"`).
    public static let errorDomain = "com.salesforce.smartstore.error"
    /// A soup table's id column (`"id"`, the entry's `_soupEntryId`).
    public static let idColumn = "id"
    /// A soup table's creation time column (`"created"`).
    public static let createdColumn = "created"
    /// A soup table's last modification time column (`"lastModified"`).
    public static let lastModifiedColumn = "lastModified"
    /// A soup table's entry column (`"soup"`, the entry's JSON).
    public static let soupColumn = "soup"

    /// The date of an entry's `_soupLastModifiedDate` (milliseconds since 1970).
    public static func date(lastModifiedValue: NSNumber) -> Date {
        Date(timeIntervalSince1970: lastModifiedValue.doubleValue / 1000)
    }
}
