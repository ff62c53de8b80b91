import GRDB
import Testing

@testable import SmartStore

/// Scenario 10: alter soup, with and without re-index, interrupted after each step and resumed on open.
@Suite struct AlterSoupTests {
    static let oldSpecs = [IndexSpec("lastName", .string)]
    static let newSpecs = [IndexSpec("lastName", .string), IndexSpec("address.city", .string), IndexSpec("address.street", .json1)]

    static func seed(_ store: SmartStore) throws {
        try store.registerSoup("employees", indexSpecs: oldSpecs)
        try store.create(
            [
                ["lastName": "Haas", "address": ["city": "San Francisco", "street": "Market"]],
                ["lastName": "Kwan", "address": ["city": "New York", "street": "Broadway"]],
            ], in: "employees")
    }

    static func verify(_ store: SmartStore, reIndexed: Bool) throws {
        let specs = try store.indexSpecs(ofSoup: "employees")
        #expect(specs.map(\.path) == ["lastName", "address.city", "address.street"])
        #expect(specs.map(\.columnName) == ["TABLE_1_0", "TABLE_1_1", "json_extract(soup, '$.address.street')"])
        let columns = try store.read { db in try Row.fetchAll(db, sql: "SELECT TABLE_1_0, TABLE_1_1 FROM TABLE_1 ORDER BY id") }
        #expect(columns.map { $0[0] as String? } == ["Haas", "Kwan"])
        #expect(columns.map { $0[1] as String? } == (reIndexed ? ["San Francisco", "New York"] : [nil, nil]))
        let pending = try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM long_operations_status") }
        #expect(pending == 0)
        #expect(try store.read { db in try db.tableExists("TABLE_1_old") } == false)
        // Queries work on the altered soup, indexed or through json_extract.
        let rows = try store.query(
            .smart("select {employees:lastName} from {employees} where {employees:address.street} = 'Broadway'", pageSize: 5))
        #expect(rows == [["Kwan"]])
        // Ids keep counting after the copy.
        #expect(try store.create(["lastName": "New"], in: "employees")["_soupEntryId"] == 3)
    }

    @Test(arguments: [true, false])
    func alterWithoutInterruption(reIndexData: Bool) throws {
        let store = try SmartStore()
        try Self.seed(store)
        try store.alterSoup("employees", indexSpecs: Self.newSpecs, reIndexData: reIndexData)
        try Self.verify(store, reIndexed: reIndexData)
    }

    @Test(arguments: AlterSoupOperation.Step.allCases.dropLast())
    func resumeAfterEachStep(step: AlterSoupOperation.Step) throws {
        let directory = TemporaryDirectory()
        let path = directory.path("store.sqlite")
        do {
            let store = try SmartStore(path: path)
            try Self.seed(store)
            try store.alterSoup("employees", indexSpecs: Self.newSpecs, reIndexData: true, stoppingAfter: step)
            let status = try store.read { db in try String.fetchOne(db, sql: "SELECT status FROM long_operations_status") }
            #expect(status == step.rawValue)
        }
        // "Restart the app": opening the store resumes the operation.
        let reopened = try SmartStore(path: path)
        try Self.verify(reopened, reIndexed: true)
    }

    @Test func alterChangingTypesAndFullText() throws {
        let store = try SmartStore()
        try store.registerSoup("notes", indexSpecs: [IndexSpec("n", .string), IndexSpec("title", .json1)])
        try store.create([["n": 2, "title": "alpha beta"], ["n": 10, "title": "gamma"]], in: "notes")
        try store.alterSoup("notes", indexSpecs: [IndexSpec("n", .integer), IndexSpec("title", .fullText)], reIndexData: true)
        #expect(try store.query(.all(soup: "notes", selectPaths: ["n"], orderPath: "n", pageSize: 5)) == [[2], [10]])
        #expect(try store.count(.match(soup: "notes", path: "title", key: "beta", pageSize: 5)) == 1)
    }

    @Test func reIndexSoupProjectsExistingEntries() throws {
        let store = try SmartStore()
        try Self.seed(store)
        try store.alterSoup("employees", indexSpecs: Self.newSpecs, reIndexData: false)
        try store.reIndexSoup("employees", paths: ["address.city"])
        try Self.verify(store, reIndexed: true)
    }
}
