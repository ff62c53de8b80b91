import Foundation

@testable import SmartStore

/// A temporary directory removed when the value is deinitialised.
final class TemporaryDirectory: Sendable {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("smartstore-tests-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// The SDK's SmartSqlTest fixture: employees (TABLE_1) and departments (TABLE_2).
enum EmployeesFixture {
    static let employeeSpecs = [
        IndexSpec("firstName", .string), // TABLE_1_0
        IndexSpec("lastName", .string), // TABLE_1_1
        IndexSpec("deptCode", .string), // TABLE_1_2
        IndexSpec("employeeId", .string), // TABLE_1_3
        IndexSpec("managerId", .string), // TABLE_1_4
        IndexSpec("salary", .integer), // TABLE_1_5
        IndexSpec("education", .json1),
        IndexSpec("isManager", .json1),
    ]
    static let departmentSpecs = [
        IndexSpec("deptCode", .string), // TABLE_2_0
        IndexSpec("name", .string), // TABLE_2_1
        IndexSpec("budget", .integer), // TABLE_2_2
        IndexSpec("building", .json1),
    ]

    static func makeStore() throws -> SmartStore {
        let store = try SmartStore()
        try store.registerSoup("employees", indexSpecs: employeeSpecs)
        try store.registerSoup("departments", indexSpecs: departmentSpecs)
        return store
    }

    static func loadData(_ store: SmartStore) throws {
        let employees: [(String, String, String, String, String?, Int64, Bool)] = [
            ("Christine", "Haas", "A00", "00010", nil, 200000, true),
            ("Michael", "Thompson", "A00", "00020", "00010", 120000, false),
            ("Sally", "Kwan", "A00", "00310", "00010", 100000, false),
            ("John", "Geyer", "B00", "00040", nil, 102000, true),
            ("Irving", "Stern", "B00", "00050", "00040", 100000, true),
            ("Eva", "Pulaski", "B00", "00060", "00050", 80000, false),
            ("Eileen", "Henderson", "B00", "00070", "00050", 70000, false),
        ]
        for (first, last, dept, id, manager, salary, isManager) in employees {
            var employee: JSONValue = [
                "firstName": .string(first), "lastName": .string(last), "deptCode": .string(dept),
                "employeeId": .string(id), "salary": .int(salary), "isManager": .bool(isManager),
            ]
            // Like Java's JSONObject.put(key, null), a null manager leaves the key out.
            if let manager { employee["managerId"] = .string(manager) }
            try store.create(employee, in: "employees")
        }
        try store.create(["deptCode": "A00", "name": "Sales", "budget": 1_000_000], in: "departments")
        try store.create(["deptCode": "B00", "name": "R&D", "budget": 2_000_000], in: "departments")
    }

    static func createEmployee(_ store: SmartStore, _ json: String) throws -> JSONValue {
        try store.create(try JSONValue(parsing: json), in: "employees")
    }
}
