public import FastJSON
public import SalesforceREST

/// One page fetched by a ``FetchingSyncDownTarget``: raw JSON, never decoded on the way to the store.
public struct SyncDownPage: Sendable {
    /// The response body.
    public var body: [UInt8]
    /// Where the records are in `body` (`records`; empty for a top-level array).
    public var recordsPath: String
    /// Total records the fetch will return (all pages), or -1 if unknown.
    public var totalSize: Int
    /// Opaque continuation for the next page (`nextRecordsUrl`), nil on the last page.
    public var next: String?

    /// A page as fetched; see the properties for what each part means.
    public init(body: [UInt8], recordsPath: String = "records", totalSize: Int, next: String?) {
        self.body = body
        self.recordsPath = recordsPath
        self.totalSize = totalSize
        self.next = next
    }
}

/// Where a sync down gets its records, and how it writes them. Targets are values, persisted
/// as JSON in the sync state; register custom types with ``SyncTargetRegistry``.
///
/// Most targets fetch pages of records for the sync's soup: adopt ``FetchingSyncDownTarget``,
/// which runs the SDK's algorithm for you. A target that writes several soups or decides
/// deletes itself (the paging, briefcase and parent/children targets) implements
/// ``syncDown(_:context:)`` and ``cleanGhosts(_:context:)`` with the helpers of ``SyncContext``.
public protocol SyncDownTarget: Sendable {
    /// The target as JSON, with a `type` key (`soql`, …).
    var json: JSONValue { get }
    /// The field holding a record's server id (`Id`).
    var idFieldName: String { get }
    /// The field holding a record's last modification date (`LastModifiedDate`), which drives resyncs.
    var modificationDateFieldName: String { get }

    /// Runs the sync: fetches, writes the store, and advances `sync` (``SyncState/totalSize``,
    /// progress, counters and ``SyncState/maxTimeStamp``, saved with ``SyncContext/save(_:)``).
    /// `sync.maxTimeStamp` on entry is the boundary of the previous run (-1 for a full sync).
    /// Throwing fails the sync, except ``SyncError/stopped``, which stops it.
    func syncDown(_ sync: inout SyncState, context: SyncContext) async throws

    /// Removes the sync's records the server no longer has (or that no longer match the
    /// target), as of `sync`; returns how many. ``SyncContext/deleteGhosts(soup:idFieldName:syncId:remote:)``
    /// does the local half.
    func cleanGhosts(_ sync: SyncState, context: SyncContext) async throws -> Int

    /// The soups this target writes besides the sync's own (`[]` by default): runs that share a
    /// soup run one at a time, in the order they were submitted.
    var additionalSoupNames: [String] { get }
}

extension SyncDownTarget {
    /// None: the target writes only the sync's soup.
    public var additionalSoupNames: [String] { [] }
}

/// A sync down target that fetches pages of records for the sync's soup: the shape of the SDK's
/// targets (`startFetch`/`continueFetch`/`getRemoteIds`). Implement the fetches; the sync itself
/// comes with the protocol.
///
/// The sync down it runs hands each page, as raw bytes, to the store's bulk ingest while the next
/// page is fetched; records dirty locally are skipped in LEAVE_IF_CHANGED mode; the boundary
/// advances per page when ``isSortedByModificationDate``, else at the end. A resync first reads
/// ``fetchLateCommits(client:maxTimeStamp:continuation:)`` when the target offers it. Ghost
/// cleanup asks ``remoteIds(client:localIds:)`` about 500 local ids at a time (the SOQL target
/// merges the server's ids in Id order instead, 2,000 per request).
public protocol FetchingSyncDownTarget: SyncDownTarget {
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

extension FetchingSyncDownTarget {
    /// Pages are not assumed sorted: the boundary advances once, at the end of the sync.
    public var isSortedByModificationDate: Bool { false }

    /// No late-commit window.
    public func fetchLateCommits(client: RestClient, maxTimeStamp: Int64, continuation: String?) async throws -> SyncDownPage? { nil }

    /// Deletes the sync's clean records of its soup that ``remoteIds(client:localIds:)`` does not return.
    public func cleanGhosts(_ sync: SyncState, context: SyncContext) async throws -> Int {
        let client = context.client
        return try await context.deleteGhosts(soup: sync.soupName, idFieldName: idFieldName, syncId: sync.id) {
            try await remoteIds(client: client, localIds: $0)
        }
    }
}
