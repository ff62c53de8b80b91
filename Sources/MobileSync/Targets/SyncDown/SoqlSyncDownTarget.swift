public import FastJSON
import SOQL
public import SalesforceREST
import SalesforceWire

/// Sync down with a SOQL query (the SDK's `soql` target).
///
/// The query is completed as the SDK does: `Id` and `LastModifiedDate` are selected and
/// `ORDER BY LastModifiedDate` is added when there is no ORDER BY. A resync adds
/// `LastModifiedDate > <maxTimeStamp>` — in parentheses with the existing filter (the SDK
/// prepends it without parentheses, so `WHERE a OR b` over-fetches or is rejected) — then reads
/// the ``lateCommitWindowMilliseconds`` behind that boundary again, which the SDK does not: a
/// record a long transaction committed late, stamped before the boundary, is not missed.
public struct SoqlSyncDownTarget: FetchingSyncDownTarget {
    /// The query as given (see ``completedQuery`` for what is sent).
    public let query: String
    /// The field holding a record's id (`Id`), added to the SELECT if missing.
    public let idFieldName: String
    /// The field holding a record's modification date (`LastModifiedDate`), added to the SELECT and ORDER BY if
    /// missing.
    public let modificationDateFieldName: String
    /// Records per page (200…2000).
    public let maxBatchSize: Int
    /// How far behind its boundary a resync reads again (ms, 0…1 day; 0 turns it off).
    ///
    /// Five minutes by default: a Salesforce transaction's stamps can precede its commit by its
    /// whole duration, bounded in practice by the limits on Apex CPU (10 s), callouts (120 s
    /// in all) and lock waits; five minutes leaves room. A resync costs one more query, whose
    /// size is the records changed in that window.
    public let lateCommitWindowMilliseconds: Int64
    /// Five minutes.
    public static let defaultLateCommitWindow: Int64 = 300_000
    private let parsed: Query
    /// The completed query, parsed.
    var parsedQuery: Query { parsed }

    /// A SOQL target. `maxBatchSize` is clamped to 200…2000 and the window to 0…1 day.
    ///
    /// - Throws: ``SyncError/invalidTarget(_:)`` for a query the SOQL parser refuses (with its
    ///   position), and for a query whose rows are not records: aggregates (`COUNT(Id)`,
    ///   `MAX(…)`, GROUP BY, HAVING) and `SELECT COUNT()`. Everything else SOQL has is kept as
    ///   written: functions, TYPEOF, FIELDS(), WITH, USING SCOPE, semi-joins.
    public init(
        query: String, idFieldName: String = "Id", modificationDateFieldName: String = "LastModifiedDate", maxBatchSize: Int = 2000,
        lateCommitWindowMilliseconds: Int64 = SoqlSyncDownTarget.defaultLateCommitWindow
    ) throws {
        self.lateCommitWindowMilliseconds = min(86_400_000, max(0, lateCommitWindowMilliseconds))
        let parsed: Query
        do {
            parsed = try SOQLParser.parse(query)
        } catch {
            throw SyncError.invalidTarget("Invalid SOQL in sync target: \(error)")
        }
        guard !parsed.isAggregate else {
            throw SyncError.invalidTarget(
                "A sync down needs records: aggregate queries (aggregate functions, GROUP BY, HAVING) return AggregateResult rows, which cannot be synced: \(query)"
            )
        }
        guard !parsed.isCountOnly else {
            throw SyncError.invalidTarget("A sync down needs records: SELECT COUNT() returns a number only: \(query)")
        }
        self.query = query
        self.idFieldName = idFieldName
        self.modificationDateFieldName = modificationDateFieldName
        self.maxBatchSize = min(2000, max(200, maxBatchSize))
        self.parsed = Self.completed(parsed, id: idFieldName, modificationDate: modificationDateFieldName)
    }

    init(json: JSONValue) throws {
        guard let query = json["query"]?.stringValue else { throw SyncError.invalidConfig("soql target needs a \"query\"") }
        try self.init(
            query: query, idFieldName: json["idFieldName"]?.stringValue ?? "Id",
            modificationDateFieldName: json["modificationDateFieldName"]?.stringValue ?? "LastModifiedDate",
            maxBatchSize: json["maxBatchSize"]?.int64Value.map { Int(clamping: $0) } ?? 2000,
            lateCommitWindowMilliseconds: json["lateCommitWindowMilliseconds"]?.int64Value ?? Self.defaultLateCommitWindow)
    }

    /// `{"type": "soql", "query": …, "maxBatchSize": N}` with the field names and the late-commit window.
    public var json: JSONValue {
        [
            "type": "soql", "query": .string(query), "idFieldName": .string(idFieldName),
            "modificationDateFieldName": .string(modificationDateFieldName), "maxBatchSize": .int(Int64(maxBatchSize)),
            "lateCommitWindowMilliseconds": .int(lateCommitWindowMilliseconds),
        ]
    }

    /// The query as sent: completed with id, modification date and ordering.
    public var completedQuery: String { parsed.description }

    /// Whether the query is ordered by the modification date alone, so the boundary advances per page (the SDK's rule).
    public var isSortedByModificationDate: Bool {
        parsed.orderBy.count == 1 && parsed.orderBy[0].field?.description.lowercased() == modificationDateFieldName.lowercased()
            && parsed.orderBy[0].direction != .descending
    }

    /// The query with the id and modification date selected (unless `FIELDS(ALL)` or
    /// `FIELDS(STANDARD)` already brings the standard ones: a field selected twice is an error
    /// for Salesforce), and ordered by the modification date when it has no order.
    static func completed(_ query: Query, id: String, modificationDate: String) -> Query {
        var query = query
        var selected = Set(query.selectedFields.map { $0.description.lowercased() })
        let all = query.selectItems.contains(.fields(.all))
        let standard = query.selectItems.contains(.fields(.standard))
        let custom = query.selectItems.contains(.fields(.custom))
        for name in [id, modificationDate] {
            let isCustom = name.lowercased().hasSuffix("__c")
            if all || (standard && !isCustom) || (custom && isCustom) { selected.insert(name.lowercased()) }
        }
        if !selected.contains(modificationDate.lowercased()) { query.selectItems.insert(.field(FieldPath([modificationDate])), at: 0) }
        if !selected.contains(id.lowercased()) { query.selectItems.insert(.field(FieldPath([id])), at: 0) }
        if query.orderBy.isEmpty { query.orderBy = [OrderItem(field: FieldPath([modificationDate]))] }
        return query
    }

    /// The query restricted to records modified after `maxTimeStamp`.
    func query(after maxTimeStamp: Int64) -> Query {
        guard maxTimeStamp > 0 else { return parsed }
        var query = parsed
        let after = Condition.comparison(
            FieldPath([modificationDateFieldName]), .greaterThan, .dateTime(SalesforceTime.format(maxTimeStamp, zulu: true)))
        query.condition = query.condition.map { .and([after, .group($0)]) } ?? after
        return query
    }

    /// The records modified within ``lateCommitWindowMilliseconds`` up to the boundary; nil when
    /// the window is 0 or on a first sync.
    public func fetchLateCommits(client: RestClient, maxTimeStamp: Int64, continuation: String?) async throws -> SyncDownPage? {
        guard lateCommitWindowMilliseconds > 0, maxTimeStamp > 0 else { return nil }
        let page: QueryPage
        if let continuation {
            page = try await client.queryMore(continuation)
        } else {
            var query = query(after: max(0, maxTimeStamp - lateCommitWindowMilliseconds))
            let through = Condition.comparison(
                FieldPath([modificationDateFieldName]), .lessThanOrEqual, .dateTime(SalesforceTime.format(maxTimeStamp, zulu: true)))
            query.condition = query.condition.map { .and([through, .group($0)]) } ?? through
            page = try await client.query(query.description, batchSize: maxBatchSize)
        }
        return SyncDownPage(body: page.body, totalSize: page.totalSize, next: page.done ? nil : page.nextRecordsURL)
    }

    /// The completed query, with the resync filter after a boundary; then its `nextRecordsUrl` pages.
    public func fetch(client: RestClient, maxTimeStamp: Int64, continuation: String?) async throws -> SyncDownPage {
        let page =
            if let continuation {
                try await client.queryMore(continuation)
            } else {
                try await client.query(query(after: maxTimeStamp).description, batchSize: maxBatchSize)
            }
        return SyncDownPage(body: page.body, totalSize: page.totalSize, next: page.done ? nil : page.nextRecordsURL)
    }

    /// The records among `ids` that the query returns now, every page: the query restricted to
    /// those ids.
    func records(ids: [String], client: RestClient) async throws -> [JSONValue] {
        var query = parsed
        let filter = Condition.inList(FieldPath([idFieldName]), negated: false, values: ids.map { Literal.string($0) })
        query.condition = query.condition.map { .and([filter, .group($0)]) } ?? filter
        return try await client.allRecords(query.description)
    }

    /// Which of `localIds` the query still returns: the query with `SELECT Id` and no ORDER BY,
    /// restricted to those ids — unless it has a LIMIT or OFFSET, which are kept, and the whole
    /// result is read.
    public func remoteIds(client: RestClient, localIds: [String]) async throws -> Set<String> {
        var query = parsed
        query.selectItems = [.field(FieldPath([idFieldName]))]
        query.orderBy = []
        if query.limit == nil && query.offset == nil {
            // Ask only about these ids: requests grow with the soup, memory does not.
            let filter = Condition.inList(FieldPath([idFieldName]), negated: false, values: localIds.map { Literal.string($0) })
            query.condition = query.condition.map { .and([filter, .group($0)]) } ?? filter
        }
        return Set(try await client.allRecords(query.description).compactMap { $0[idFieldName]?.stringValue })
    }

    /// Ghost cleanup by sorted merge: the server's ids of the query in Id order (query paging,
    /// 2,000 per request) against the soup's ids read in the same order. A query with LIMIT keeps
    /// its own order and is read once, then sorted in memory (its LIMIT bounds it). When the
    /// server's order is not byte-wise ascending, a LIMIT is above 200,000, or an OFFSET has no
    /// LIMIT (nothing bounds its result), the cleanup falls back to asking about 500 local ids
    /// at a time.
    public func cleanGhosts(_ sync: SyncState, context: SyncContext) async throws -> Int {
        let client = context.client
        var query = parsed
        query.selectItems = [.field(FieldPath([idFieldName]))]
        query.forClause = nil
        query.update = nil
        let idField = idFieldName
        let ids = { (page: QueryPage) throws -> [String] in try page.records().compactMap { $0[idField]?.stringValue } }
        var removed: Int?
        if query.limit == nil && query.offset == nil {
            query.orderBy = [OrderItem(field: FieldPath([idFieldName]))]
            let text = query.description
            // The next server page is fetched while the current one is merged.
            var pending: Task<QueryPage, any Error>?
            var started = false
            defer { pending?.cancel() }
            removed = try await context.deleteGhostsByMerge(soup: sync.soupName, idFieldName: idFieldName, syncId: sync.id) {
                let page: QueryPage
                if let task = pending {
                    page = try await task.value
                } else if !started {
                    page = try await client.query(text, batchSize: 2000)
                } else {
                    return nil
                }
                started = true
                pending = nil
                if !page.done, let next = page.nextRecordsURL { pending = Task { try await client.queryMore(next) } }
                return try ids(page)
            }
        } else if let limit = query.limit, limit <= Self.maximumSortedLimit {
            var all: [String] = []
            var page = try await client.query(query.description, batchSize: 2000)
            all += try ids(page)
            while !page.done, let next = page.nextRecordsURL {
                try await context.checkStop()
                page = try await client.queryMore(next)
                all += try ids(page)
            }
            all.sort()
            var served = false
            removed = try await context.deleteGhostsByMerge(soup: sync.soupName, idFieldName: idFieldName, syncId: sync.id) {
                defer { served = true }
                return served ? nil : all
            }
        }
        if let removed { return removed }
        return try await context.deleteGhosts(soup: sync.soupName, idFieldName: idFieldName, syncId: sync.id) {
            try await remoteIds(client: client, localIds: $0)
        }
    }

    /// The largest LIMIT whose result ghost cleanup reads whole and sorts in memory.
    static let maximumSortedLimit = 200_000
}
