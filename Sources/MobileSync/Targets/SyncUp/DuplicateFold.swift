import FastJSON
import SmartStore

/// Entries of one soup that hold the same server id, folded into one, the oldest, so that each
/// record is held once. They come from a copy another writer made of a record while its create
/// was on the wire or being reconciled (a live sync's CREATE event). A clean duplicate is
/// deleted; a dirty one's own changes (the fields where it differs from its base, or from the
/// kept entry when it has no base) are carried onto the kept entry, which becomes dirty.
struct DuplicateFold {
    let store: SmartStore
    let soup: String
    let idField: String

    /// Folds every server id held more than once; returns how many entries went.
    func foldAll() async throws -> Int {
        guard try store.hasIndex(forPath: idField, inSoup: soup) else { return 0 }
        let sql = "select {\(soup):\(idField)} from {\(soup)} group by {\(soup):\(idField)} having count(*) > 1"
        return try await foldEach(try await store.query(.smart(sql, pageSize: 10_000)))
    }

    /// Folds those of `ids` held more than once (one indexed query per 500 ids, then a
    /// transaction per id held twice); returns how many entries went.
    func fold(_ ids: [String]) async throws -> Int {
        guard try store.hasIndex(forPath: idField, inSoup: soup) else { return 0 }
        var folded = 0
        for start in stride(from: 0, to: ids.count, by: 500) {
            let slice = Array(ids[start..<min(ids.count, start + 500)])
            let marks = Array(repeating: "?", count: slice.count).joined(separator: ", ")
            let sql = """
                select {\(soup):\(idField)} from {\(soup)} where {\(soup):\(idField)} in (\(marks)) \
                group by {\(soup):\(idField)} having count(*) > 1
                """
            folded += try await foldEach(
                try await store.query(.smart(sql, pageSize: slice.count), arguments: slice.map { .string($0) }))
        }
        return folded
    }

    private func foldEach(_ rows: [JSONValue]) async throws -> Int {
        var folded = 0
        for id in rows.compactMap({ $0.arrayValue?.first?.stringValue }) where !LocalFields.isLocalId(id) {
            folded += try await fold(id)
        }
        return folded
    }

    /// Folds the entries holding `id`, read again in the folding transaction; returns how many went.
    func fold(_ id: String) async throws -> Int {
        let holders = try await store.query(.exact(soup: soup, path: idField, key: .string(id), pageSize: 50))
        let entryIds = holders.compactMap { $0["_soupEntryId"]?.int64Value }.sorted()
        guard entryIds.count > 1 else { return 0 }
        let (soup, idField) = (self.soup, self.idField)
        return try await store.inTransaction { tx in
            let now = try tx.retrieve(entryIds, from: soup).filter { $0[idField]?.stringValue == id }
            guard now.count > 1, var kept = now.first, let keptId = kept["_soupEntryId"]?.int64Value else { return 0 }
            let bases = try tx.shadows(ConflictShadows.base, of: entryIds, in: soup)
            var removed: [Int64] = []
            for other in now.dropFirst() {
                guard let otherId = other["_soupEntryId"]?.int64Value else { continue }
                if LocalFields.isDirty(other) { kept = Self.carry(other, base: bases[otherId], onto: kept) }
                removed.append(otherId)
            }
            kept["_soupLastModifiedDate"] = nil // read in this transaction: written as it is
            _ = try tx.update(kept, id: keptId, in: soup)
            try tx.delete(removed, from: soup)
            return removed.count
        }
    }

    /// `kept` with the changes the app made to `other`, dirty.
    static func carry(_ other: JSONValue, base: JSONValue?, onto kept: JSONValue) -> JSONValue {
        guard case .object(let fields) = other else { return kept }
        var merged = kept
        for (key, value) in fields where !LocalFields.isOwned(key) { // never the engine's or the store's fields
            let changed = base.map { ($0[key] ?? .null) != value } ?? ((kept[key] ?? .null) != value)
            if changed { merged[key] = value }
        }
        let deleted = LocalFields.isSet(kept[LocalFields.locallyDeleted]) || LocalFields.isSet(other[LocalFields.locallyDeleted])
        merged[LocalFields.local] = true
        merged[LocalFields.locallyCreated] = false // it holds a server id
        merged[LocalFields.locallyUpdated] = .bool(!deleted)
        merged[LocalFields.locallyDeleted] = .bool(deleted)
        return merged
    }
}
