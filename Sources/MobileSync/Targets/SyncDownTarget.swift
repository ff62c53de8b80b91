public import FastJSON
public import SalesforceREST

/// One page fetched by a sync down target: raw JSON, never decoded on the way to the store.
public struct SyncDownPage: Sendable {
    /// The response body.
    public var body: [UInt8]
    /// Where the records are in `body` (`records`; empty for a top-level array).
    public var recordsPath: String
    /// Total records the fetch will return (all pages), or -1 if unknown.
    public var totalSize: Int
    /// Opaque continuation for the next page (`nextRecordsUrl`), nil on the last page.
    public var next: String?

    public init(body: [UInt8], recordsPath: String = "records", totalSize: Int, next: String?) {
        self.body = body
        self.recordsPath = recordsPath
        self.totalSize = totalSize
        self.next = next
    }
}

/// Where a sync down gets its records. Targets are values, persisted as JSON in the sync state.
///
/// Implement ``fetch(client:maxTimeStamp:continuation:)`` (and ``remoteIds(client:localIds:)``
/// for ghost cleanup) to sync from anything; register custom types with ``SyncTargetRegistry``.
public protocol SyncDownTarget: Sendable {
    /// The target as JSON, with a `type` key (`soql`, …).
    var json: JSONValue { get }
    var idFieldName: String { get }
    var modificationDateFieldName: String { get }
    /// Whether pages come ordered by modification date, so `maxTimeStamp` can advance per page.
    var isSortedByModificationDate: Bool { get }

    /// The first page (`continuation` nil) or the next one. Only records modified after
    /// `maxTimeStamp` (epoch ms, -1 for all) are wanted.
    func fetch(client: RestClient, maxTimeStamp: Int64, continuation: String?) async throws -> SyncDownPage

    /// For a resync, after the records modified since the boundary `maxTimeStamp`: the first
    /// page (`continuation` nil) or the next one of the records modified in a window just
    /// behind it (up to and including it). On a real org a long transaction stamps its records
    /// when it writes but shows them when it commits, so a record can appear there after the
    /// previous run passed it. Records read again unchanged are skipped. nil: the target reads
    /// no window (the default).
    func fetchLateCommits(client: RestClient, maxTimeStamp: Int64, continuation: String?) async throws -> SyncDownPage?

    /// Which of `localIds` still exist remotely (and still match the target). Used by ghost
    /// cleanup, which pages through the soup so memory does not grow with it.
    func remoteIds(client: RestClient, localIds: [String]) async throws -> Set<String>
}

extension SyncDownTarget {
    public var isSortedByModificationDate: Bool { false }
    public func fetchLateCommits(client: RestClient, maxTimeStamp: Int64, continuation: String?) async throws -> SyncDownPage? { nil }
}
