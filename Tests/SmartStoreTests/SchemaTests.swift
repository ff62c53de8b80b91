import GRDB
import Testing

@testable import SmartStore

/// Scenario 1: schema created on register, as the SDK lays it out.
@Suite struct SchemaTests {
    @Test func registerCreatesSDKTablesAndColumns() throws {
        let store = try EmployeesFixture.makeStore()
        let specs = try store.indexSpecs(ofSoup: "employees")
        #expect(
            specs.map(\.columnName) == [
                "TABLE_1_0", "TABLE_1_1", "TABLE_1_2", "TABLE_1_3", "TABLE_1_4", "TABLE_1_5",
                "json_extract(soup, '$.education')", "json_extract(soup, '$.isManager')",
            ])
        #expect(
            try store.indexSpecs(ofSoup: "departments").map(\.columnName) == [
                "TABLE_2_0", "TABLE_2_1", "TABLE_2_2", "json_extract(soup, '$.building')",
            ])
        let columns = try store.read { db in try db.columns(in: "TABLE_1").map(\.name) }
        #expect(
            columns == [
                "id", "soup", "created", "lastModified", "TABLE_1_0", "TABLE_1_1", "TABLE_1_2", "TABLE_1_3", "TABLE_1_4", "TABLE_1_5",
            ])
        let indexes = try store.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'TABLE_1'")
        }
        #expect(
            Set(indexes).isSuperset(of: [
                "TABLE_1_created_idx", "TABLE_1_lastModified_idx", "TABLE_1_0_idx", "TABLE_1_6_idx", "TABLE_1_7_idx",
            ]))
        let map = try store.read { db in
            try Row.fetchAll(db, sql: "SELECT path, columnName, columnType FROM soup_index_map WHERE soupName = 'employees' ORDER BY rowid")
                .map { "\($0["path"] as String)|\($0["columnName"] as String)|\($0["columnType"] as String)" }
        }
        #expect(map.first == "firstName|TABLE_1_0|string")
        #expect(map.last == "isManager|json_extract(soup, '$.isManager')|json1")
        #expect(try store.read { db in try db.tableExists("long_operations_status") })
    }

    @Test func reRegisterIsANoOpAndZeroSpecsIsAnError() throws {
        let store = try EmployeesFixture.makeStore()
        try store.registerSoup("employees", indexSpecs: [IndexSpec("other", .string)])
        #expect(try store.indexSpecs(ofSoup: "employees").count == 8)
        #expect(try store.soupNames() == ["employees", "departments"])
        #expect(throws: SmartStoreError.noIndexSpecs(soup: "empty")) { try store.registerSoup("empty", indexSpecs: []) }
        #expect(try store.hasSoup("empty") == false)
    }

    @Test func fullTextSpecCreatesFTS5Table() throws {
        let store = try SmartStore()
        try store.registerSoup(
            "notes", indexSpecs: [IndexSpec("title", .fullText), IndexSpec("body", .fullText), IndexSpec("n", .integer)])
        let sql = try store.read { db in try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'TABLE_1_fts'") }
        #expect(sql == "CREATE VIRTUAL TABLE TABLE_1_fts USING fts5(TABLE_1_0, TABLE_1_1)")
    }

    @Test func soupManagement() throws {
        let store = try EmployeesFixture.makeStore()
        try EmployeesFixture.loadData(store)
        #expect(try store.hasIndex(forPath: "lastName", inSoup: "employees"))
        #expect(try store.hasIndex(forPath: "address.city", inSoup: "employees") == false)
        try store.clearSoup("employees")
        #expect(try store.count(.all(soup: "employees", pageSize: 10)) == 0)
        #expect(try store.hasSoup("employees"))
        // Ids are not reused after a clear.
        let next = try store.create(["firstName": "New"], in: "employees")
        #expect(next["_soupEntryId"] == 8)
        try store.dropSoup("employees")
        #expect(try store.hasSoup("employees") == false)
        #expect(try store.read { db in try db.tableExists("TABLE_1") } == false)
        #expect(throws: SmartStoreError.unknownSoup("employees")) { try store.create(["a": 1], in: "employees") }
        try store.registerSoup("employees", indexSpecs: EmployeesFixture.employeeSpecs)
        #expect(try store.indexSpecs(ofSoup: "employees")[0].columnName == "TABLE_3_0")
        try store.dropAllSoups()
        #expect(try store.soupNames().isEmpty)
    }
}
