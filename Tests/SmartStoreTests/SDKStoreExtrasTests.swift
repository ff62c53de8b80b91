import FastJSON
import Foundation
import SmartStore
import Testing

#if canImport(Combine)
    import Combine // elsewhere SmartStore re-exports OpenCombine
#endif

/// The SDK's cursors, size, plans and transactions.
@Suite struct SDKStoreExtrasTests {
    static func store(entries: Int) throws -> SmartStore {
        let store = try SmartStore()
        try store.registerSoup(
            "accounts", indexSpecs: [IndexSpec("Name", .string), IndexSpec("Employees", .integer), IndexSpec("About", .fullText)])
        _ = try store.create(
            (0..<entries).map { ["Name": .string("A\(1000 + $0)"), "Employees": .int(Int64($0)), "About": .string("text \($0)")] },
            in: "accounts")
        return store
    }

    @Test func aCursorPagesThroughAQuery() throws {
        let store = try Self.store(entries: 23)
        var cursor = try StoreCursor(store: store, querySpec: .all(soup: "accounts", orderPath: "Name", pageSize: 10))
        #expect(cursor.totalEntries == 23 && cursor.totalPages == 3 && cursor.currentPageIndex == 0)
        #expect(cursor.currentPageOrderedEntries.first?["Name"] == "A1000")
        try cursor.moveToPage(2)
        #expect(cursor.currentPageOrderedEntries.count == 3 && cursor.currentPageOrderedEntries.last?["Name"] == "A1022")
        try cursor.moveToPage(99) // kept to the last page
        #expect(cursor.currentPageIndex == 2)
        try cursor.moveToPage(-1)
        #expect(cursor.currentPageIndex == 0)
        #expect(cursor.json["totalPages"] == 3 && cursor.json["currentPageOrderedEntries"]?.arrayValue?.count == 10)
        let other = try StoreCursor(store: store, querySpec: .all(soup: "accounts", pageSize: 5))
        #expect(other.cursorId != cursor.cursorId)
        let empty = try StoreCursor(store: try SmartStore(), querySpec: .smart("select 1 where 0", pageSize: 5))
        #expect(empty.totalPages == 0 && empty.currentPageOrderedEntries.isEmpty)
    }

    @Test func sizeAndPlan() throws {
        let store = try Self.store(entries: 10)
        let before = store.databaseSize()
        _ = try store.create(
            (0..<2_000).map { ["Name": .string("B\($0)"), "About": .string(String(repeating: "x", count: 200))] }, in: "accounts")
        #expect(store.databaseSize() > before + 400_000)
        let plan = try store.explainQueryPlan(.exact(soup: "accounts", path: "Name", key: "A1003", pageSize: 10))
        #expect(plan["sql"]?.stringValue?.contains("TABLE_1") == true)
        let details = plan["plan"]?.arrayValue?.compactMap { $0["detail"]?.stringValue } ?? []
        #expect(details.contains { $0.contains("USING INDEX") }, "\(details)")
        #expect(throws: SmartStoreError.self) { try store.explainQueryPlan(.smart("select {nope:x} from {nope}", pageSize: 1)) }
        try store.resumeLongOperations() // nothing pending: a no-op
    }

    @Test func aTransactionCommitsWholeOrNotAtAll() throws {
        let store = try Self.store(entries: 3)
        let created = try store.inTransaction { tx in
            let entries = try tx.create([["Name": "T1"], ["Name": "T2"]], in: "accounts")
            try tx.delete([try #require(entries[0]["_soupEntryId"]?.int64Value)], from: "accounts")
            #expect(try tx.count(.all(soup: "accounts", pageSize: 1)) == 4)
            return entries.count
        }
        #expect(try created == 2 && store.count(.all(soup: "accounts", pageSize: 1)) == 4)
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try store.inTransaction { tx in
                _ = try tx.upsert([["Name": "T3"]], in: "accounts")
                _ = try tx.deleteByQuery(.all(soup: "accounts", pageSize: 10), from: "accounts")
                #expect(try tx.query(.all(soup: "accounts", pageSize: 10)).isEmpty)
                throw Abort()
            }
        }
        #expect(try store.count(.all(soup: "accounts", pageSize: 1)) == 4)
        // The store's own calls inside the body throw (GRDB would stop the process on a nested
        // write), and the transaction still commits what it wrote through its own calls.
        let outcome = try store.inTransaction { tx in
            _ = try tx.create([["Name": "T4"]], in: "accounts")
            let nested = Result { try store.create(["Name": "nested"], in: "accounts") }
            let read = Result { try store.query(.all(soup: "accounts", pageSize: 10)) }
            return (nested, read)
        }
        #expect(throws: SmartStoreError.self) { try outcome.0.get() }
        #expect(throws: SmartStoreError.self) { try outcome.1.get() }
        #expect(try store.count(.exact(soup: "accounts", path: "Name", key: "T4", pageSize: 1)) == 1)
        #expect(try store.count(.exact(soup: "accounts", path: "Name", key: "nested", pageSize: 1)) == 0)
        // Outside a body, the same thread's calls work again.
        _ = try store.create(["Name": "after"], in: "accounts")
    }

    @Test func anAsynchronousTransaction() async throws {
        let store = try Self.store(entries: 3)
        _ = try await store.create(["Name": "T2"], in: "accounts")
        let updated = try await store.inTransaction { tx in
            let first = try tx.query(.exact(soup: "accounts", path: "Name", key: "T2", pageSize: 1))[0]
            let id = first["_soupEntryId"]?.int64Value ?? 0
            return try tx.update(["Name": "T2 edited"], id: id, in: "accounts")["Name"]
        }
        #expect(updated == "T2 edited")
        #expect(try await store.count(.exact(soup: "accounts", path: "Name", key: "T2 edited", pageSize: 1)) == 1)
    }
}
