import SOQL

/// What a live sync needs to know of its SOQL query to apply change events without a resync.
struct LiveQueryShape: Sendable {
    /// The queried object (`Account`).
    var objectName: String
    /// The selected fields when all are plain fields of the object (`Name`, not `Owner.Name`,
    /// functions, TYPEOF or subqueries); `nil` otherwise: every event then becomes a resync.
    var fields: [String]?
    /// Whether every record of the object belongs to the result (no WHERE, LIMIT, OFFSET,
    /// scope or WITH): a created record can then be added from its event.
    var takesEveryRecord: Bool

    init(_ query: Query) {
        objectName = query.object
        var fields: [String] = []
        var plain = true
        for item in query.selectItems {
            if case .field(let path) = item, path.components.count == 1 {
                if !fields.contains(where: { $0.lowercased() == path.field.lowercased() }) { fields.append(path.field) }
            } else {
                plain = false
            }
        }
        self.fields = plain ? fields : nil
        takesEveryRecord =
            query.condition == nil && query.limit == nil && query.offset == nil && query.scope == nil && query.with.isEmpty
            && query.fromRelationships.isEmpty
    }
}

extension SoqlSyncDownTarget {
    /// The query's shape as a live sync sees it.
    var liveShape: LiveQueryShape { LiveQueryShape(parsedQuery) }
}
