public import FastJSON
import GRDB

/// An entry and some of its shadows, as ``SmartStore/modify(_:in:shadows:_:)`` hands them over.
public struct EntryWithShadows: Sendable {
    /// The entry; set it to `nil` to delete it (its shadows go with it).
    public var entry: JSONValue?
    /// Its shadows of the kinds asked for, by kind; set one to `nil` to remove it.
    public var shadows: [String: JSONValue]

    /// An entry with its shadows.
    public init(entry: JSONValue?, shadows: [String: JSONValue] = [:]) {
        self.entry = entry
        self.shadows = shadows
    }
}

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
        try write(modifying(ids, in: soupName, shadows: []) { try change(&$0.entry) })
    }

    /// Modifies entries without blocking the caller's thread; see ``modify(_:in:_:)-zqjg``.
    @discardableResult
    public func modify(_ ids: [Int64], in soupName: String, _ change: @escaping @Sendable (inout JSONValue?) throws -> Void) async throws
        -> [JSONValue]
    {
        try await write(modifying(ids, in: soupName, shadows: []) { try change(&$0.entry) })
    }

    /// Like ``modify(_:in:_:)-zqjg``, with the entries' shadows of `kinds` (see
    /// ``captureShadow(_:inSoup:whenFlagSet:)``): `change` may edit those too, and they are
    /// written in the same transaction, after the entry (so a shadow `change` sets wins over
    /// one a capture kept or cleared on that write).
    @discardableResult
    public func modify(
        _ ids: [Int64], in soupName: String, shadows kinds: Set<String>,
        _ change: @escaping @Sendable (inout EntryWithShadows) throws -> Void
    ) async throws -> [JSONValue] {
        for kind in kinds { try Identifiers.validateSoupName(kind) }
        return try await write(modifying(ids, in: soupName, shadows: kinds, change))
    }

    private func modifying(
        _ ids: [Int64], in soupName: String, shadows kinds: Set<String>,
        _ change: @escaping @Sendable (inout EntryWithShadows) throws -> Void
    ) -> @Sendable (Database) throws -> [JSONValue] {
        { db in
            let soup = try self.requireSoup(db, named: soupName)
            var current: [Int64: JSONValue] = [:]
            for chunk in ids.chunked(by: 500) {
                for (id, entry) in try Self.entries(Array(chunk), soup: soup, db: db) { current[id] = entry }
            }
            let shadows = try Self.shadows(db, soupName: soupName, kinds: kinds, of: Array(current.keys))
            var writer = EntryWriter(db: db, soup: soup)
            var saved: [JSONValue] = []
            var removed: [Int64] = []
            var shadowWrites: [Int64: [String: JSONValue?]] = [:]
            var seen: Set<Int64> = []
            for id in ids where seen.insert(id).inserted {
                guard let entry = current[id] else { continue }
                let before = shadows[id] ?? [:]
                var edit = EntryWithShadows(entry: entry, shadows: before)
                try change(&edit)
                guard let changed = edit.entry else {
                    removed.append(id)
                    continue
                }
                if changed != entry { saved.append(try writer.update(changed, id: id)) }
                for kind in kinds where edit.shadows[kind] != before[kind] { shadowWrites[id, default: [:]][kind] = edit.shadows[kind] }
            }
            if !removed.isEmpty { try Self.delete(removed, soup: soup, db: db) }
            try Self.writeShadows(db, soup: soup, shadowWrites)
            return saved
        }
    }
}
