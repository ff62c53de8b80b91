import GRDB
import Testing

@testable import SmartStore

/// Scenario 6: deleteByQuery deletes only the first pageSize matches, full-text rows included.
@Suite struct DeleteByQueryTests {
    @Test func honoursPageSizeAndCleansFullText() throws {
        let store = try SmartStore()
        try store.registerSoup("test", indexSpecs: [IndexSpec("key", .string), IndexSpec("value", .fullText)])
        try store.create([["key": "ka1", "value": "one"], ["key": "ka2", "value": "two"], ["key": "ka3", "value": "three"]], in: "test")
        let spec = QuerySpec.range(soup: "test", path: "key", begin: "ka1", end: "ka3", orderPath: "key", pageSize: 2)
        #expect(try store.deleteByQuery(spec, from: "test") == 2)
        #expect(try store.query(.all(soup: "test", pageSize: 10)).map { $0["key"] } == ["ka3"])
        let ftsRows = try store.read { db in try Int64.fetchAll(db, sql: "SELECT rowid FROM TABLE_1_fts ORDER BY rowid") }
        #expect(ftsRows == [3])
    }

    @Test func smartQueryMustSelectTheEntryId() throws {
        let store = try SmartStore()
        try store.registerSoup("test", indexSpecs: [IndexSpec("key", .string)])
        try store.create((1...5).map { index -> JSONValue in ["key": .string("k\(index)")] }, in: "test")
        let spec = QuerySpec.smart("select {test:_soupEntryId} from {test} where {test:key} > 'k2' order by {test:key} desc", pageSize: 2)
        #expect(try store.deleteByQuery(spec, from: "test") == 2)
        #expect(try store.query(.all(soup: "test", orderPath: "key", pageSize: 10)).map { $0["key"] } == ["k1", "k2", "k3"])
    }
}
