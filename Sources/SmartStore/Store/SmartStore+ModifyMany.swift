public import FastJSON
import GRDB

extension SmartStore {
    /// Reads the entries with these ids, lets `change` edit each one or remove it (by setting it
    /// to `nil`), and saves what changed, all in one transaction: a write landing between the
    /// read and the save (a local edit made while a sync applies its outcomes) cannot be lost.
    ///
    /// Missing ids are skipped; an entry `change` leaves as it was is not written.
    ///
    /// - Returns: the entries saved, in the order of `ids` (removed and untouched ones are not in it).
    /// - Throws: what `change` throws (nothing is saved then), ``SmartStoreError/unknownSoup(_:)``.
    @discardableResult
    public func modify(_ ids: [Int64], in soupName: String, _ change: @escaping @Sendable (inout JSONValue?) throws -> Void) throws
        -> [JSONValue]
    {
        try write(modifying(ids, in: soupName, change))
    }

    /// Modifies entries without blocking the caller's thread; see ``modify(_:in:_:)-(Array<Int64>,_,_)``.
    @discardableResult
    public func modify(_ ids: [Int64], in soupName: String, _ change: @escaping @Sendable (inout JSONValue?) throws -> Void) async throws
        -> [JSONValue]
    {
        try await write(modifying(ids, in: soupName, change))
    }

    private func modifying(_ ids: [Int64], in soupName: String, _ change: @escaping @Sendable (inout JSONValue?) throws -> Void)
        -> @Sendable (Database) throws -> [JSONValue]
    {
        { db in
            let soup = try self.requireSoup(db, named: soupName)
            var current: [Int64: JSONValue] = [:]
            for chunk in ids.chunked(by: 500) {
                for (id, entry) in try Self.entries(Array(chunk), soup: soup, db: db) { current[id] = entry }
            }
            var writer = EntryWriter(db: db, soup: soup)
            var saved: [JSONValue] = []
            var removed: [Int64] = []
            var seen: Set<Int64> = []
            for id in ids where seen.insert(id).inserted {
                guard let entry = current[id] else { continue }
                var changed: JSONValue? = entry
                try change(&changed)
                guard let changed else {
                    removed.append(id)
                    continue
                }
                if changed != entry { saved.append(try writer.update(changed, id: id)) }
            }
            if !removed.isEmpty { try Self.delete(removed, soup: soup, db: db) }
            return saved
        }
    }
}
