import FastJSON
import Foundation
import Testing

@testable import LocalForce

/// Aggregates, GROUP BY / ROLLUP / CUBE / HAVING, date functions, FIELDS(), toLabel, FORMAT,
/// convertCurrency, USING SCOPE and WITH, over HTTP (on SQLite, and on PostgreSQL in the
/// suite's second run).
@Suite struct AggregateQueryTests {
    /// Six accounts: Energy ×3 (revenue 100, 200, null), Media ×2 (50, 50), one without industry.
    static func seed(_ server: TestServer) async throws {
        let rows: [(String, String?, Double?)] = [
            ("A1", "Energy", 100), ("A2", "Energy", 200), ("A3", "Energy", nil), ("B1", "Media", 50), ("B2", "Media", 50), ("C1", nil, 7),
        ]
        for (index, (name, industry, revenue)) in rows.enumerated() {
            var fields: [String: JSONValue] = ["Name": .string(name), "NumberOfEmployees": .int(Int64(index + 1))]
            if index % 2 == 0 { fields["Rating"] = "Hot" }
            if let industry { fields["Industry"] = .string(industry) }
            if let revenue { fields["AnnualRevenue"] = .double(revenue) }
            _ = try await server.create("Account", .object(fields))
        }
    }

    static func records(_ server: TestServer, _ soql: String) async throws -> [JSONValue] {
        let reply = try await server.query(soql)
        #expect(reply.status == 200, "\(soql): \(String(decoding: reply.body, as: UTF8.self))")
        return reply.json?["records"]?.arrayValue ?? []
    }

    @Test func groupByWithAggregatesAliasesAndExpressionNames() async throws {
        try await withServer { server in
            try await Self.seed(server)
            let rows = try await Self.records(
                server,
                "SELECT Industry, COUNT(Id), COUNT(AnnualRevenue) withRevenue, SUM(AnnualRevenue), AVG(AnnualRevenue), MIN(Name), MAX(Name) FROM Account GROUP BY Industry ORDER BY Industry NULLS LAST"
            )
            #expect(rows.count == 3)
            let energy = try #require(rows.first)
            #expect(energy["attributes"]?["type"] == "AggregateResult")
            #expect(energy["Industry"] == "Energy")
            #expect(energy["expr0"] == 3)
            #expect(energy["withRevenue"] == 2)
            #expect(energy["expr1"]?.doubleValue == 300)
            #expect(energy["expr2"]?.doubleValue == 150)
            #expect(energy["expr3"] == "A1" && energy["expr4"] == "A3")
            #expect(rows.last?["Industry"] == .null)
            let reply = try await server.query("SELECT COUNT(Id) FROM Account")
            #expect(reply.json?["totalSize"] == 1 && reply.json?["done"] == true)
            #expect(reply.json?["records"]?.arrayValue?.first?["expr0"] == 6)
        }
    }

    @Test func havingOrderByAggregateLimitAndCountDistinct() async throws {
        try await withServer { server in
            try await Self.seed(server)
            let rows = try await Self.records(
                server, "SELECT Industry, COUNT(Id) cnt FROM Account GROUP BY Industry HAVING COUNT(Id) > 1 ORDER BY COUNT(Id) DESC LIMIT 5"
            )
            #expect(rows.map { $0["Industry"] } == ["Energy", "Media"])
            #expect(rows.map { $0["cnt"] } == [3, 2])
            let distinct = try await Self.records(server, "SELECT COUNT_DISTINCT(Industry) FROM Account")
            #expect(distinct.first?["expr0"] == 2)
        }
    }

    @Test func rollupAndCubeAddSubtotalsWithGrouping() async throws {
        try await withServer { server in
            try await Self.seed(server)
            let rollup = try await Self.records(
                server,
                "SELECT Industry, GROUPING(Industry) grp, COUNT(Id) cnt FROM Account WHERE Industry != null GROUP BY ROLLUP(Industry)")
            #expect(rollup.count == 3)
            let total = try #require(rollup.first { $0["grp"] == 1 })
            #expect(total["cnt"] == 5 && total["Industry"] == .null)
            let cube = try await Self.records(
                server, "SELECT Industry, Type, COUNT(Id) FROM Account WHERE Industry != null GROUP BY CUBE(Industry, Type)")
            // (Industry, Type): 2 groups; Industry: 2; Type: 1 (all null); grand total: 1.
            #expect(cube.count == 6)
        }
    }

    @Test func dateFunctionsInSelectWhereAndGroupBy() async throws {
        try await withServer { server in
            try await Self.seed(server)
            let year = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date()).year ?? 0
            let rows = try await Self.records(
                server,
                "SELECT CALENDAR_YEAR(CreatedDate), CALENDAR_QUARTER(CreatedDate) q, COUNT(Id) FROM Account WHERE CALENDAR_YEAR(CreatedDate) = \(year) GROUP BY CALENDAR_YEAR(CreatedDate), CALENDAR_QUARTER(CreatedDate)"
            )
            #expect(rows.count == 1)
            #expect(rows.first?["expr0"]?.int64Value == Int64(year))
            #expect(rows.first?["expr1"] == 6)
            let none = try await Self.records(server, "SELECT Id FROM Account WHERE CALENDAR_YEAR(CreatedDate) IN (1999, 2000)")
            #expect(none.isEmpty)
            let days = try await Self.records(
                server,
                "SELECT DAY_ONLY(CreatedDate) day, HOUR_IN_DAY(CreatedDate), COUNT(Id) FROM Account GROUP BY DAY_ONLY(CreatedDate), HOUR_IN_DAY(CreatedDate)"
            )
            #expect(days.first?["day"]?.stringValue?.count == 10)
            let notGrouped = try await server.query("SELECT CALENDAR_YEAR(CreatedDate) FROM Account")
            #expect(notGrouped.status == 400 && notGrouped.errorCode == "MALFORMED_QUERY")
        }
    }

    @Test func fieldsToLabelFormatConvertCurrencyAndTheLimitRule() async throws {
        try await withServer { server in
            try await Self.seed(server)
            let all = try await Self.records(server, "SELECT FIELDS(ALL) FROM Account WHERE Name = 'A1' LIMIT 200")
            #expect(all.first?["Name"] == "A1" && all.first?["Industry"] == "Energy" && all.first?["LastModifiedDate"] != nil)
            let standard = try await Self.records(server, "SELECT Id, FIELDS(STANDARD) FROM Account WHERE Name = 'A1'")
            #expect(standard.first?["Id"] != nil && standard.first?["AnnualRevenue"] != nil)
            let noLimit = try await server.query("SELECT FIELDS(ALL) FROM Account")
            #expect(noLimit.status == 400)
            #expect(noLimit.message == "The SOQL FIELDS function must have a LIMIT of at most 200")
            let labelled = try await Self.records(
                server,
                "SELECT toLabel(Industry), FORMAT(AnnualRevenue) money, convertCurrency(AnnualRevenue) FROM Account WHERE Name = 'A2' AND AnnualRevenue > USD150"
            )
            #expect(labelled.first?["Industry"] == "Energy")
            #expect(labelled.first?["money"] == "$200.00")
            #expect(labelled.first?["AnnualRevenue"]?.doubleValue == 200)
        }
    }

    @Test func usingScopeAndWithClauses() async throws {
        try await withServer { server in
            try await Self.seed(server)
            let everything = try await Self.records(server, "SELECT Id FROM Account USING SCOPE everything WITH SECURITY_ENFORCED")
            #expect(everything.count == 6)
            // The static token acts as the API user, who owns everything it created.
            let mine = try await Self.records(server, "SELECT Id FROM Account USING SCOPE mine WITH USER_MODE")
            #expect(mine.count == 6)
            let team = try await server.query("SELECT Id FROM Account USING SCOPE team")
            #expect(team.status == 400)
            let category = try await server.query("SELECT Id FROM Account WITH DATA CATEGORY Geography__c AT usa__c")
            #expect(category.status == 400 && category.errorCode == "MALFORMED_QUERY")
            let forUpdate = try await Self.records(server, "SELECT Id FROM Account ORDER BY Name NULLS LAST LIMIT 2 FOR UPDATE")
            #expect(forUpdate.count == 2)
        }
    }

    /// What a first review found: HAVING on subtotal rows, integer sums on PostgreSQL, subtotal
    /// order, FORMAT of currency sums, and what must be refused rather than answered.
    @Test func subtotalsIntegerSumsFormatAndRefusals() async throws {
        try await withServer { server in
            try await Self.seed(server)
            // HAVING reads NULL for the field a subtotal row does not group by: the total is dropped.
            let having = try await Self.records(
                server, "SELECT Industry, COUNT(Id) FROM Account WHERE Industry != null GROUP BY ROLLUP(Industry) HAVING Industry != null")
            #expect(having.map { $0["Industry"] } == ["Energy", "Media"])
            // Integer sums and averages are numbers on both backends.
            let employees = try await Self.records(server, "SELECT SUM(NumberOfEmployees), AVG(NumberOfEmployees) FROM Account")
            #expect(employees.first?["expr0"] == 21)
            #expect(employees.first?["expr1"]?.doubleValue == 3.5)
            // ROLLUP(a, b) without ORDER BY: each subtotal right after its group, the total last.
            let rollup = try await Self.records(
                server, "SELECT Industry, Rating, COUNT(Id) FROM Account WHERE Industry != null GROUP BY ROLLUP(Industry, Rating)")
            #expect(
                rollup.map { "\($0["Industry"]?.stringValue ?? "-")/\($0["Rating"]?.stringValue ?? "-")/\($0["expr0"]?.int64Value ?? -1)" }
                    == ["Energy/-/1", "Energy/Hot/2", "Energy/-/3", "Media/-/1", "Media/Hot/1", "Media/-/2", "-/-/5"])
            let formatted = try await Self.records(server, "SELECT FORMAT(SUM(AnnualRevenue)) total FROM Account")
            #expect(formatted.first?["total"] == "$407.00")
            for refused in [
                "SELECT Industry, GROUPING(Industry) FROM Account GROUP BY Industry",
                "SELECT AnnualRevenue, FORMAT(AnnualRevenue) FROM Account",
                "SELECT FORMAT(CALENDAR_YEAR(CreatedDate)) FROM Account",
                "SELECT Id FROM Account WHERE CALENDAR_YEAR(CreatedDate) = '2024'",
            ] {
                let reply = try await server.query(refused)
                #expect(reply.status == 400 && reply.errorCode == "MALFORMED_QUERY", "\(refused)")
            }
        }
    }
}
