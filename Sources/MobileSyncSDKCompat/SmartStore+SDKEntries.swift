import FastJSON
public import Foundation
public import SmartStore

/// The SDK's SmartStore calls on entries and soups (`SFSmartStore` in Swift), with its types:
/// entries are `[AnyHashable: Any]` (numbers as `NSNumber`s, see `query(_:)`), ids `NSNumber`,
/// page indexes `UInt`, and the quiet forms return empty results or `false` where the SDK's do,
/// after logging the error. Each is a thin layer over the store's own call.
extension SmartStore {
    /// The store's name: its folder's name in a store directory, else its file's name
    /// (`:memory:` for a store in memory).
    public var name: String {
        guard let path else { return ":memory:" }
        let file = URL(fileURLWithPath: path)
        return file.lastPathComponent == "store.sqlite" ? file.deletingLastPathComponent().lastPathComponent : file.lastPathComponent
    }

    /// Registers a soup with the SDK's index specs (SmartStore's `registerSoup(_:indexSpecs:)`).
    public func registerSoup(withName soupName: String, withIndices indexSpecs: [SoupIndex]) throws {
        try registerSoup(soupName, indexSpecs: indexSpecs.map(\.indexSpec))
    }

    /// Whether the soup exists; false also when the store cannot be read (logged).
    public func soupExists(forName soupName: String) -> Bool { quietly(false) { try hasSoup(soupName) } }

    /// The soup's indexes, with their columns; none for an unknown soup (logged).
    public func indices(forSoupNamed soupName: String) -> [SoupIndex] {
        quietly([]) { try indexSpecs(ofSoup: soupName).map(SoupIndex.init) }
    }

    /// The names of the store's soups.
    public func allSoupNames() -> [String] { quietly([]) { try soupNames() } }

    /// The number of entries or rows the query matches.
    public func count(using querySpec: QuerySpec) throws -> NSNumber { NSNumber(value: try count(querySpec)) }

    /// One page of the query's results, as Foundation values: entries as `[AnyHashable: Any]`,
    /// rows (Smart SQL, select paths) as `[Any]`.
    public func query(using querySpec: QuerySpec, startingFromPageIndex pageIndex: UInt) throws -> [Any] {
        try query(using: querySpec, startingFromPageIndex: pageIndex, whereArgs: nil)
    }

    /// One page of a Smart SQL query with `?` arguments bound to `whereArgs`.
    public func query(using querySpec: QuerySpec, startingFromPageIndex pageIndex: UInt, whereArgs: [Any]?) throws -> [Any] {
        let arguments = try whereArgs.map { try $0.map { try FoundationBridge.json($0) } }
        return try query(querySpec, pageIndex: Int(clamping: pageIndex), arguments: arguments).map(Self.sdkValue)
    }

    /// The entries with these ids that exist, in the order asked; none when the soup does not
    /// exist (logged).
    public func retrieve(usingSoupEntryIds soupEntryIds: [NSNumber], fromSoupNamed soupName: String) -> [[AnyHashable: Any]] {
        quietly([]) { try retrieve(soupEntryIds.map(\.int64Value), from: soupName).map(Self.entry) }
    }

    /// Inserts or updates entries by `_soupEntryId` and returns them as stored; none when one
    /// of them cannot be written (logged; none is written then).
    @discardableResult
    public func upsert(entries: [[AnyHashable: Any]], forSoupNamed soupName: String) -> [[AnyHashable: Any]] {
        quietly([]) {
            let values = try entries.map { try FoundationBridge.json($0) }
            return try upsert(values, in: soupName).map(Self.entry)
        }
    }

    /// Inserts or updates entries matched by `externalIdPath` and returns them as stored.
    @discardableResult
    public func upsert(entries: [Any], forSoupNamed soupName: String, withExternalIdPath externalIdPath: String) throws -> [Any] {
        let values = try entries.map { try FoundationBridge.json($0) }
        return try upsert(values, in: soupName, externalIdPath: externalIdPath).map(Self.entry)
    }

    /// The id of the entry whose `fieldPath` is `fieldValue`.
    ///
    /// - Throws: `SmartStoreError.entryNotFound(soup:id:)` (id 0) when none matches, as the
    ///   SDK's Swift form throws then.
    public func lookupSoupEntryId(soupNamed soupName: String, fieldPath: String, fieldValue: String) throws -> NSNumber {
        guard let id = try lookupSoupEntryId(soup: soupName, path: fieldPath, value: .string(fieldValue)) else {
            throw SmartStoreError.entryNotFound(soup: soupName, id: 0)
        }
        return NSNumber(value: id)
    }

    /// Deletes the entries with these ids.
    public func remove(entryIds: [NSNumber], forSoupNamed soupName: String) throws {
        try delete(entryIds.map(\.int64Value), from: soupName)
    }

    /// Deletes the entries the query matches.
    public func removeEntries(usingQuerySpec querySpec: QuerySpec, forSoupNamed soupName: String) throws {
        try deleteByQuery(querySpec, from: soupName)
    }

    /// Drops a soup and its entries (logged when it fails).
    public func removeSoup(_ soupName: String) { quietly(()) { try dropSoup(soupName) } }

    /// Drops every soup (logged when it fails).
    public func removeAllSoups() { quietly(()) { try dropAllSoups() } }

    /// Changes a soup's indexes; whether it did.
    @discardableResult
    public func alterSoup(named soupName: String, indexSpecs: [SoupIndex], reIndexData: Bool) -> Bool {
        quietly(false) {
            try alterSoup(soupName, indexSpecs: indexSpecs.map(\.indexSpec), reIndexData: reIndexData)
            return true
        }
    }

    /// Re-extracts the values of these indexed paths; whether it did.
    @discardableResult
    public func reIndexSoup(named soupName: String, indexPaths: [String]) -> Bool {
        quietly(false) {
            try reIndexSoup(soupName, paths: indexPaths)
            return true
        }
    }

    /// An entry as the SDK hands it out.
    static func entry(_ value: JSONValue) -> [AnyHashable: Any] {
        var entry: [AnyHashable: Any] = [:]
        for (key, member) in FoundationBridge.foundation(value) as? [String: Any] ?? [:] { entry[key] = member }
        return entry
    }

    /// Runs `body`, logging what it throws and answering `fallback` instead, as the SDK's quiet
    /// calls do.
    private func quietly<T>(_ fallback: T, _ body: () throws -> T) -> T {
        do {
            return try body()
        } catch {
            SDKLog.error("SmartStore \(name): \(error)")
            return fallback
        }
    }
}
