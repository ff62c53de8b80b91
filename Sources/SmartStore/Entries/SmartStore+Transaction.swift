import FastJSON
import Foundation
import GRDB

/// The store inside one write transaction (`SmartStore.inTransaction(_:)`): what it writes
/// commits together when the closure returns, or not at all when it throws. It cannot leave the
/// closure (it is borrowed and cannot be copied). Inside the closure, use these calls: the
/// store's own throw there (``SmartStoreError/database(_:)``), as they could neither nest in this
/// transaction nor see its writes.
public struct StoreTransaction: ~Copyable {
    let store: SmartStore
    let db: Database

    /// Saves new entries (as `SmartStore.create(_:in:)`).
    public func create(_ entries: [JSONValue], in soupName: String) throws -> [JSONValue] {
        try store.creating(entries, in: soupName)(db)
    }

    /// Replaces an entry (as `SmartStore.update(_:id:in:)`).
    public func update(_ entry: JSONValue, id: Int64, in soupName: String) throws -> JSONValue {
        try store.updating(entry, id: id, in: soupName)(db)
    }

    /// Creates or updates entries by `externalIdPath` (as `SmartStore.upsert(_:in:externalIdPath:)`).
    public func upsert(_ entries: [JSONValue], in soupName: String, externalIdPath: String = "_soupEntryId") throws -> [JSONValue] {
        try store.upserting(entries, in: soupName, externalIdPath: externalIdPath)(db)
    }

    /// Reads entries by id, as this transaction sees them.
    public func retrieve(_ ids: [Int64], from soupName: String) throws -> [JSONValue] {
        try store.retrieving(ids, from: soupName)(db)
    }

    /// The `kind` shadows of these entries, as this transaction sees them (as
    /// `SmartStore.shadows(_:of:in:)`).
    public func shadows(_ kind: String, of entryIds: [Int64], in soupName: String) throws -> [Int64: JSONValue] {
        try store.readingShadows([kind], of: entryIds, in: soupName)(db).mapValues { $0[kind] ?? .null }
    }

    /// Deletes entries by id.
    public func delete(_ ids: [Int64], from soupName: String) throws {
        try store.deleting(ids, from: soupName)(db)
    }

    /// Deletes the entries a query matches; returns how many.
    public func deleteByQuery(_ spec: QuerySpec, from soupName: String) throws -> Int {
        try store.deleting(spec, from: soupName)(db)
    }

    /// A page of a query, as this transaction sees the store.
    public func query(_ spec: QuerySpec, pageIndex: Int = 0, arguments: [JSONValue]? = nil) throws -> [JSONValue] {
        try store.querying(spec, bound: try SmartStore.pagedArguments(for: spec, arguments, pageIndex: pageIndex))(db)
    }

    /// The number of results of a query, as this transaction sees the store.
    public func count(_ spec: QuerySpec, arguments: [JSONValue]? = nil) throws -> Int {
        try store.counting(spec, bound: try SmartStore.arguments(for: spec, arguments))(db)
    }
}

extension SmartStore {
    /// Runs `body` in one write transaction: everything it writes commits when it returns, and
    /// nothing when it throws (the error is rethrown). Other writers wait meanwhile; readers see
    /// the store as it was until the commit.
    ///
    /// <!-- snippet: Snippets/SmartStoreReference.swift#transaction -->
    /// ```swift
    /// try store.inTransaction { tx in
    ///     let order = try tx.create([["Name": "Order 1"]], in: "orders")[0]
    ///     _ = try tx.upsert([["Id": "001…", "LastOrder": order["_soupEntryId"] ?? nil]], in: "accounts", externalIdPath: "Id")
    /// }
    /// ```
    public func inTransaction<T>(_ body: (borrowing StoreTransaction) throws -> T) throws -> T {
        try write { db in try runMarked { try body(StoreTransaction(store: self, db: db)) } }
    }

    /// Runs `body` with this thread marked as inside a transaction body.
    private func runMarked<T>(_ body: () throws -> T) throws -> T {
        let thread = ObjectIdentifier(Thread.current)
        transactionThreads.withLock { _ = $0.insert(thread) }
        defer { transactionThreads.withLock { _ = $0.remove(thread) } }
        return try body()
    }

    /// The transaction above without blocking the caller's thread.
    public func inTransaction<T: Sendable>(_ body: @escaping @Sendable (borrowing StoreTransaction) throws -> T) async throws -> T {
        try await write { db in try self.runMarked { try body(StoreTransaction(store: self, db: db)) } }
    }
}
