import Foundation
import Testing

@testable import SmartStore

/// Bad input gives a typed error and leaves data intact.
@Suite struct BadInputTests {
    let store: SmartStore

    init() throws {
        store = try EmployeesFixture.makeStore()
        try EmployeesFixture.loadData(store)
    }

    private func assertIntact() throws {
        #expect(try store.count(.all(soup: "employees", pageSize: 1)) == 7)
        #expect(try store.soupNames() == ["employees", "departments"])
    }

    @Test(arguments: [
        "select {employees:firstName from {employees}", // unbalanced: left as is, SQLite rejects it
        "select {employees:firstName} frm {employees}",
        "select nosuchcolumn from {employees}",
        "select 1; drop table TABLE_1",
        "select {employees:firstName} from {employees}; delete from TABLE_1",
    ])
    func invalidSmartSqlIsATypedError(_ smartSql: String) throws {
        #expect(throws: SmartStoreError.self) { try store.query(.smart(smartSql, pageSize: 10)) }
        try assertIntact()
    }

    @Test func writesThroughSmartSqlAreImpossible() throws {
        // Even disguised as a SELECT, a write fails: queries run on a read-only connection.
        #expect(throws: SmartStoreError.self) {
            try store.query(.smart("with x as (select 1) delete from TABLE_1", pageSize: 10))
        }
        try assertIntact()
    }

    @Test func unknownSoupEverywhere() throws {
        let unknown = SmartStoreError.unknownSoup("ghosts")
        #expect(throws: unknown) { try store.create(["a": 1], in: "ghosts") }
        #expect(throws: unknown) { try store.upsert(["a": 1], in: "ghosts") }
        #expect(throws: unknown) { try store.retrieve([1], from: "ghosts") }
        #expect(throws: unknown) { try store.delete([1], from: "ghosts") }
        #expect(throws: unknown) { try store.clearSoup("ghosts") }
        #expect(throws: unknown) { try store.indexSpecs(ofSoup: "ghosts") }
        #expect(throws: unknown) { try store.alterSoup("ghosts", indexSpecs: [IndexSpec("a", .string)], reIndexData: true) }
        #expect(throws: SmartStoreError.invalidSmartSQL("Unknown soup ghosts at character 7")) {
            try store.query(.smart("select {ghosts:a} from {ghosts}", pageSize: 1))
        }
        #expect(unknown.description == "Soup: ghosts does not exist")
        try assertIntact()
    }

    @Test func malformedJSON() throws {
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: #"{"a": }"#) }
        #expect(throws: SmartStoreError.malformedJSON("A soup entry must be a JSON object")) { try store.create([1, 2], in: "employees") }
        #expect(throws: SmartStoreError.malformedJSON("A soup entry must be a JSON object")) { try store.upsert("text", in: "employees") }
        #expect(throws: SmartStoreError.invalidConfig("Store config is not valid JSON: Malformed JSON at byte 11: unexpected end of input"))
        {
            try StoreConfig(data: Array(#"{"soups": ["#.utf8))
        }
        try assertIntact()
    }

    @Test(arguments: [
        "", "employees; DROP TABLE soup_attrs", "x'--", "a b", "{employees}", "emp:loyees", "robert');DROP TABLE TABLE_1;--",
        String(repeating: "s", count: 300), "名前",
    ])
    func hostileSoupNamesAreRefused(_ name: String) throws {
        #expect(throws: SmartStoreError.invalidSoupName(name)) { try store.registerSoup(name, indexSpecs: [IndexSpec("a", .string)]) }
        #expect(try store.hasSoup(name) == false)
        try assertIntact()
    }

    @Test(arguments: ["a') from x --", "a..b", "", "a'b", "a b", ".a", "a)"])
    func hostileIndexPathsAreRefused(_ path: String) throws {
        #expect(throws: SmartStoreError.invalidPath(path)) { try store.registerSoup("fine", indexSpecs: [IndexSpec(path, .json1)]) }
        #expect(try store.hasSoup("fine") == false)
        try assertIntact()
    }

    @Test func duplicateIndexPaths() throws {
        #expect(throws: SmartStoreError.duplicateIndexPath(soup: "dup", path: "a")) {
            try store.registerSoup("dup", indexSpecs: [IndexSpec("a", .string), IndexSpec("a", .integer)])
        }
    }

    @Test func hostileStoreNames() throws {
        let directory = TemporaryDirectory()
        let stores = StoreDirectory(root: directory.url)
        #expect(throws: SmartStoreError.invalidStoreName("../escape")) { try stores.globalStore(named: "../escape") }
        #expect(throws: SmartStoreError.invalidStoreName("..")) { try stores.globalStore(named: "..") }
        #expect(throws: SmartStoreError.invalidStoreName("user ../x")) { try stores.userStore(user: "../x") }
        #expect(try stores.globalStoreNames().isEmpty)
    }

    @Test func storeFileThatIsNotADatabase() throws {
        let directory = TemporaryDirectory()
        let path = directory.path("garbage.sqlite")
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: path))
        #expect(throws: SmartStoreError.self) { try SmartStore(path: path) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(repeating: 0x41, count: 4096))
    }
}
