import SmartStore
import Testing

/// Scenarios 5, 7 and 8 (and the rest of the SDK's SmartSqlTest queries).
@Suite struct QueryTests {
    let store: SmartStore

    init() throws {
        store = try EmployeesFixture.makeStore()
    }

    private func smart(_ sql: String, pageSize: Int = 10, arguments: [JSONValue]? = nil) throws -> [JSONValue] {
        try store.query(.smart(sql, pageSize: pageSize), arguments: arguments)
    }

    @Test func countSumAndIntegers() throws {
        try EmployeesFixture.loadData(store)
        #expect(try smart("select count(*) from {employees}", pageSize: 1) == [[7]])
        #expect(try smart("select sum({departments:budget}) from {departments}", pageSize: 1) == [[3_000_000]])
        #expect(try smart("select {employees:salary} from {employees} where {employees:lastName} = 'Haas'", pageSize: 1) == [[200000]])
        #expect(
            try smart(
                "select mgr.{employees:salary}, e.{employees:salary} from {employees} as mgr, {employees} as e where e.{employees:lastName} = 'Thompson' and mgr.{employees:employeeId} = e.{employees:managerId}",
                pageSize: 1) == [[200000, 120000]])
        #expect(
            try smart(
                "select {employees:salary} from {employees} where {employees:managerId} = '00010' order by {employees:firstName}",
                pageSize: 2) == [[120000], [100000]])
    }

    @Test func soupColumnsAreParsedAndSpecialFieldsReturned() throws {
        try EmployeesFixture.loadData(store)
        let christine = try store.query(.exact(soup: "employees", path: "employeeId", key: "00010", pageSize: 1))[0]
        #expect(christine["firstName"] == "Christine")
        let rows = try smart(
            "select {employees:_soup}, {employees:_soupEntryId}, {employees:_soupLastModifiedDate}, {employees:salary} from {employees} where {employees:lastName} = 'Haas'",
            pageSize: 1)
        #expect(rows == [[christine, christine["_soupEntryId"] ?? nil, christine["_soupLastModifiedDate"] ?? nil, 200000]])
        // Two soup columns in one row: both parsed.
        let pair = try smart(
            "select mgr.{employees:_soup}, e.{employees:_soup} from {employees} as mgr, {employees} as e where e.{employees:lastName} = 'Thompson' and mgr.{employees:employeeId} = e.{employees:managerId}"
        )
        #expect(pair.first?.arrayValue?.first == christine)
        #expect(pair.first?.arrayValue?.last?["lastName"] == "Thompson")
        let created = try smart("select {employees:_soupCreatedDate} from {employees} where {employees:lastName} = 'Haas'")
        #expect(created == [[christine["_soupLastModifiedDate"] ?? nil]])
    }

    /// Scenario 5.
    @Test func paging() throws {
        try EmployeesFixture.loadData(store)
        let spec = QuerySpec.smart("select {employees:firstName} from {employees} order by {employees:firstName}", pageSize: 1)
        #expect(try store.count(spec) == 7)
        let names = ["Christine", "Eileen", "Eva", "Irving", "John", "Michael", "Sally"]
        for (page, name) in names.enumerated() {
            #expect(try store.query(spec, pageIndex: page) == [[.string(name)]])
        }
        #expect(try store.query(spec, pageIndex: 7).isEmpty)
        let pageOfThree = QuerySpec.all(
            soup: "employees", selectPaths: ["firstName"], orderPath: "firstName", order: .descending, pageSize: 3)
        #expect(try store.query(pageOfThree, pageIndex: 1) == [["Irving"], ["Eva"], ["Eileen"]])
    }

    /// Scenario 7: nulls, aggregates over floating and json1, booleans.
    @Test func nullsAggregatesAndBooleans() throws {
        let test = try SmartStore()
        try test.registerSoup(
            "test",
            indexSpecs: [
                IndexSpec("key", .string), IndexSpec("value", .string), IndexSpec("amount", .floating), IndexSpec("amount1", .json1),
            ])
        try test.create(["key": "ka", "value": nil], in: "test")
        #expect(try test.query(.smart("select {test:value}, {test:key} from {test}", pageSize: 10)) == [[nil, "ka"]])
        try test.clearSoup("test")
        try test.create([["key": "a", "amount": 10.2, "amount1": 10.2], ["key": "b", "amount": 9.9, "amount1": 9.9]], in: "test")
        let sums = try test.query(.smart("select sum({test:amount}), sum({test:amount1}) from {test}", pageSize: 1))
        let values = sums.first?.arrayValue?.compactMap(\.doubleValue) ?? []
        #expect(values.count == 2 && values.allSatisfy { abs($0 - 20.1) < 1e-9 })

        try EmployeesFixture.loadData(store)
        _ = try EmployeesFixture.createEmployee(store, #"{"employeeId":"101","isManager":true}"#)
        _ = try EmployeesFixture.createEmployee(store, #"{"employeeId":"102","isManager":false}"#)
        #expect(
            try smart("select {employees:employeeId} from {employees} where {employees:isManager} = 1 order by {employees:employeeId}")
                == [["00010"], ["00040"], ["00050"], ["101"]])
        #expect(
            try smart("select {employees:employeeId} from {employees} where {employees:isManager} = 0 order by {employees:employeeId}")
                == [["00020"], ["00060"], ["00070"], ["00310"], ["102"]])
    }

    @Test func matchingNullFields() throws {
        _ = try EmployeesFixture.createEmployee(store, #"{"employeeId":"001","deptCode":"xyz"}"#)
        _ = try EmployeesFixture.createEmployee(store, #"{"employeeId":"002","deptCode":null}"#)
        _ = try EmployeesFixture.createEmployee(store, #"{"employeeId":"003","deptCode":""}"#)
        let missing = try EmployeesFixture.createEmployee(store, #"{"employeeId":"004"}"#)
        #expect(missing["deptCode"] == nil)
        #expect(
            try smart(
                "select {employees:employeeId} from {employees} where {employees:deptCode} is not null order by {employees:employeeId}")
                == [["001"], ["003"]])
        #expect(
            try smart("select {employees:employeeId} from {employees} where {employees:deptCode} is null order by {employees:employeeId}")
                == [["002"], ["004"]])
        #expect(
            try smart(#"select {employees:employeeId} from {employees} where {employees:deptCode} = "" order by {employees:employeeId}"#)
                == [["003"]])
    }

    @Test func nonAsciiInStringJson1AndNonIndexedFields() throws {
        _ = try EmployeesFixture.createEmployee(
            store, #"{"employeeId":"101","firstName":"Göktuğ","education":"latince uzmanı","country":"Türkçe"}"#)
        _ = try EmployeesFixture.createEmployee(store, #"{"employeeId":"102","firstName":"보배","education":"라틴어 전문가","country":"한국"}"#)
        #expect(try smart("select {employees:employeeId} from {employees} where {employees:firstName} like '%ğ%'") == [["101"]])
        #expect(try smart("select {employees:employeeId} from {employees} where {employees:firstName} like '%배%'") == [["102"]])
        #expect(try smart("select {employees:employeeId} from {employees} where {employees:education} like '%ı%'") == [["101"]])
        #expect(try smart("select {employees:employeeId} from {employees} where {employees:education} like '%문%'") == [["102"]])
        #expect(try smart("select {employees:employeeId} from {employees} where {employees:country} like '%ç%'") == [["101"]])
        #expect(try smart("select {employees:employeeId} from {employees} where {employees:country} like '%국%'") == [["102"]])
    }

    /// Scenario 8: non-indexed fields and bind arguments.
    @Test func nonIndexedFieldsAndWhereArgs() throws {
        for (id, city, zip) in [
            ("101", "San Francisco", 94105), ("102", "New York City", 10004), ("103", "San Francisco", 94106),
            ("104", "New York City", 10006),
        ] {
            try store.create(
                ["employeeId": .string(id), "address": ["city": .string(city), "zipcode": .int(Int64(zip))]], in: "employees")
        }
        #expect(
            try smart(
                "select {employees:employeeId} from {employees} where {employees:address.city} = 'San Francisco' order by {employees:employeeId}"
            ) == [["101"], ["103"]])
        #expect(try smart("select {employees:employeeId} from {employees} where {employees:address.zipcode} = 10006") == [["104"]])
        #expect(
            try smart(
                "select {employees:employeeId}, {employees:address.zipcode} from {employees} where {employees:address.city} = 'San Francisco' order by {employees:employeeId}"
            )
                == [["101", 94105], ["103", 94106]])
        let spec = QuerySpec.smart(
            "select {employees:employeeId}, {employees:address.zipcode} from {employees} where {employees:address.city} = ? order by {employees:employeeId}",
            pageSize: 10)
        #expect(try store.query(spec, arguments: ["San Francisco"]) == [["101", 94105], ["103", 94106]])
        #expect(try store.query(spec, arguments: ["New York City"]) == [["102", 10004], ["104", 10006]])
        #expect(try store.count(spec, arguments: ["New York City"]) == 2)
        let all = QuerySpec.all(soup: "employees", orderPath: "employeeId", pageSize: 10)
        let error = #expect(throws: SmartStoreError.self) { try store.query(all, arguments: ["San Francisco"]) }
        #expect(error?.description == "whereArgs can only be provided for smart queries")
    }

    @Test func exactRangeAndLikeSpecs() throws {
        try EmployeesFixture.loadData(store)
        let range = QuerySpec.range(
            soup: "employees", selectPaths: ["lastName"], path: "salary", begin: 100000, end: 120000, orderPath: "lastName", pageSize: 10)
        #expect(try store.query(range) == [["Geyer"], ["Kwan"], ["Stern"], ["Thompson"]])
        #expect(try store.count(range) == 4)
        let like = QuerySpec.like(soup: "employees", path: "lastName", pattern: "%son", orderPath: "lastName", pageSize: 10)
        #expect(try store.query(like).map { $0["lastName"] } == ["Henderson", "Thompson"])
        let exactJson1 = QuerySpec.exact(
            soup: "employees", selectPaths: ["firstName"], path: "isManager", key: true, orderPath: "firstName", pageSize: 10)
        #expect(try store.query(exactJson1) == [["Christine"], ["Irving"], ["John"]])
    }
}

/// The JSON-text query path returns what the value path returns, without building values.
@Suite struct QueryJSONTests {
    @Test func matchesTheValueAPI() throws {
        let store = try EmployeesFixture.makeStore()
        try EmployeesFixture.loadData(store)
        let specs: [QuerySpec] = [
            .all(soup: "employees", orderPath: "employeeId", pageSize: 3),
            .smart(
                "select {employees:_soup}, {employees:salary}, {employees:managerId} from {employees} order by {employees:salary}",
                pageSize: 4),
            .exact(
                soup: "employees", selectPaths: ["lastName", "isManager"], path: "deptCode", key: "B00", orderPath: "lastName", pageSize: 10
            ),
        ]
        for spec in specs {
            for page in 0..<3 {
                let text = try store.queryJSON(spec, pageIndex: page)
                #expect(try JSONValue(parsing: text) == .array(try store.query(spec, pageIndex: page)))
            }
        }
        let bound = try store.queryJSON(
            .smart("select {employees:firstName} from {employees} where {employees:lastName} = ?", pageSize: 5), arguments: ["Kwan"])
        #expect(String(decoding: bound, as: UTF8.self) == #"[["Sally"]]"#)
    }
}
