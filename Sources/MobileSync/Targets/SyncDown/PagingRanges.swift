import FastJSON
import SmartStore

/// Key-range reads and deletes over one paging sync's records.
struct PagingRanges {
    let store: SmartStore
    let soup: String
    let keyField: String
    let syncId: Int64
    let keepDirty: Bool

    /// The sync's records (clean ones only when dirty ones are kept). The cast and the
    /// function around `__local__` keep SQLite from choosing these low-selectivity indexes over
    /// the key's, so every range query costs the range, not the soup; both compare alike
    /// whatever the index types (and the clean test is the one every sync uses).
    private var owned: String {
        "cast({\(soup):\(LocalFields.syncId)} as integer) = ?"
            + (keepDirty ? " and \(LocalFields.cleanPredicate(soup: soup))" : "")
    }

    /// Deletes owned records with `lower < key < upper` (open ends when nil). Returns how many.
    func delete(above lower: PagingKey?, below upper: PagingKey?) async throws -> Int {
        try await deleteRange(from: lower, inclusive: false, to: upper.map { ($0, false) }, keeping: [])
    }

    /// Deletes owned records with `first <= key <= last` that are not in `keeping`.
    func delete(from first: PagingKey, through last: PagingKey, keeping: Set<PagingKey>) async throws -> Int {
        try await deleteRange(from: first, inclusive: true, to: (last, true), keeping: keeping)
    }

    /// Whether owned records exist with `lower < key < upper`.
    func hasRecords(above lower: PagingKey, below upper: PagingKey?) async throws -> Bool {
        try await !keys(from: lower, inclusive: false, to: upper.map { ($0, false) }, limit: 1).isEmpty
    }

    /// Local entries (any owner) by key, for these keys, as `tx` sees them; several entries of
    /// one key in entry-id order.
    func entries(withKeys keys: [PagingKey], in tx: borrowing StoreTransaction) throws -> [PagingKey: [JSONValue]] {
        guard !keys.isEmpty else { return [:] }
        let type: PagingSyncDownTarget.KeyType = if case .integer = keys[0] { .integer } else { .string }
        // No ORDER BY: sorting by entry id would tempt SQLite into a table scan instead of the key index.
        let sql =
            "select {\(soup):_soup} from {\(soup)} where {\(soup):\(keyField)} in (" + keys.map { _ in "?" }.joined(separator: ",") + ")"
        var result: [PagingKey: [JSONValue]] = [:]
        for row in try tx.query(.smart(sql, pageSize: keys.count * 2 + 10), arguments: keys.map(\.json)) {
            guard let entry = row.arrayValue?.first, let key = PagingKey(entry[keyField], type: type) else { continue }
            result[key, default: []].append(entry)
        }
        return result.mapValues { $0.sorted { ($0["_soupEntryId"]?.int64Value ?? 0) < ($1["_soupEntryId"]?.int64Value ?? 0) } }
    }

    /// Owned entries in a key range, in key order, at most `limit`: (entry id, key).
    private func keys(from lower: PagingKey?, inclusive: Bool, to upper: (key: PagingKey, inclusive: Bool)?, limit: Int) async throws -> [(
        Int64, PagingKey?
    )] {
        let column = "{\(soup):\(keyField)}"
        var (conditions, arguments) = ([owned], [JSONValue.int(syncId)])
        if let lower {
            conditions.append(column + (inclusive ? " >= ?" : " > ?"))
            arguments.append(lower.json)
        }
        if let upper {
            conditions.append(column + (upper.inclusive ? " <= ?" : " < ?"))
            arguments.append(upper.key.json)
        }
        let sql =
            "select {\(soup):_soupEntryId}, \(column) from {\(soup)} where " + conditions.joined(separator: " and ") + " order by \(column)"
        return try await store.query(.smart(sql, pageSize: limit), arguments: arguments).compactMap { row in
            guard let values = row.arrayValue, let id = values.first?.int64Value else { return nil }
            let key = values.count > 1 ? PagingKey(values[1], type: .integer) ?? PagingKey(values[1], type: .string) : nil
            return (id, key)
        }
    }

    /// Deletes owned records in a key range whose key is not kept, 1,000 at a time in key order
    /// (each query uses the key's index and costs the range, not the soup).
    private func deleteRange(from lower: PagingKey?, inclusive: Bool, to upper: (key: PagingKey, inclusive: Bool)?, keeping: Set<PagingKey>)
        async throws -> Int
    {
        var deleted = 0
        var (from, fromInclusive) = (lower, inclusive)
        while true {
            let rows = try await keys(from: from, inclusive: fromInclusive, to: upper, limit: 1000)
            let ids = rows.filter { row in row.1.map { !keeping.contains($0) } ?? true }.map(\.0)
            try await store.delete(ids, from: soup)
            deleted += ids.count
            guard rows.count == 1000, let last = rows.last?.1 else { return deleted }
            (from, fromInclusive) = (last, false)
        }
    }
}
