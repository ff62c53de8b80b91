import GRDB
import Testing

@testable import SmartStore

/// Scenario 9: full-text search with FTS5, kept in step by create, update, upsert and delete.
@Suite struct FullTextTests {
    let store: SmartStore

    init() throws {
        store = try SmartStore()
        try store.registerSoup(
            "employees",
            indexSpecs: [
                IndexSpec("firstName", .fullText), IndexSpec("lastName", .fullText), IndexSpec("employeeId", .string),
            ])
        try store.create(
            [
                ["firstName": "Christine", "lastName": "Haas", "employeeId": "00010"],
                ["firstName": "Michael", "lastName": "Thompson", "employeeId": "00020"],
                ["firstName": "Sally", "lastName": "Kwan", "employeeId": "00310"],
                ["firstName": "Eileen", "lastName": "Henderson", "employeeId": "00070"],
                ["firstName": "Thompson", "lastName": "Henderson", "employeeId": "00080"],
            ], in: "employees")
    }

    private func matchIds(_ path: String?, _ key: String) throws -> [String] {
        try store.query(
            .match(soup: "employees", selectPaths: ["employeeId"], path: path, key: key, orderPath: "employeeId", pageSize: 10)
        )
        .compactMap { $0.arrayValue?.first?.stringValue }
    }

    @Test func matchOnOneFieldAndOnAllFields() throws {
        #expect(try matchIds("lastName", "Thompson") == ["00020"])
        #expect(try matchIds("firstName", "Thompson") == ["00080"])
        #expect(try matchIds(nil, "Thompson") == ["00020", "00080"])
        #expect(try matchIds("lastName", "Henderson NOT {employees:firstName}:Eileen") == ["00080"])
        #expect(try matchIds("lastName", "Haas OR Kwan") == ["00010", "00310"])
        #expect(try matchIds("firstName", "Mich*") == ["00020"])
        #expect(try store.count(.match(soup: "employees", path: "lastName", key: "Henderson", pageSize: 1)) == 2)
    }

    @Test func updatesAndDeletesKeepTheIndexInStep() throws {
        var sally = try store.query(.exact(soup: "employees", path: "employeeId", key: "00310", pageSize: 1))[0]
        sally["lastName"] = "Kwan-Smith"
        try store.upsert(sally, in: "employees")
        #expect(try matchIds("lastName", "Smith") == ["00310"])
        try store.upsert(
            ["employeeId": "00020", "firstName": "Mike", "lastName": "Thompson"], in: "employees", externalIdPath: "employeeId")
        #expect(try matchIds("firstName", "Michael").isEmpty)
        #expect(try matchIds("firstName", "Mike") == ["00020"])
        let haas = try store.lookupSoupEntryId(soup: "employees", path: "employeeId", value: "00010") ?? -1
        try store.delete([haas], from: "employees")
        #expect(try matchIds("lastName", "Haas").isEmpty)
        let ftsCount = try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM TABLE_1_fts") }
        #expect(ftsCount == 4)
        try store.clearSoup("employees")
        #expect(try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM TABLE_1_fts") } == 0)
    }

    @Test func hostileMatchKeyCannotEscapeTheLiteral() throws {
        let spec = QuerySpec.match(soup: "employees", path: nil, key: "x') OR 1=1 --", pageSize: 10)
        // FTS5 rejects the odd syntax, but as a query error: no SQL was injected.
        #expect(throws: SmartStoreError.self) { try store.query(spec) }
        #expect(try store.count(.all(soup: "employees", pageSize: 10)) == 5)
    }
}
