import FastJSON
import Foundation
import Testing

@testable import LocalForce

/// Requests that used to end the server process (stack overflow, arithmetic traps, trapping
/// dictionary and array APIs), now each a clear error; after each one the server still answers.
@Suite struct HostileInputTests {
    /// The first error of a reply, and proof that the server is still up.
    private func errorAfterwards(_ server: TestServer, _ reply: TestServer.Reply) async throws -> String? {
        let alive = try await server.query("SELECT Id FROM Account")
        #expect(alive.status == 200)
        return reply.errorCode
    }

    @Test func deeplyNestedSOQLIsTooComplicated() async throws {
        try await withServer { server in
            let nots = "SELECT Id FROM Account WHERE " + String(repeating: "NOT ", count: 1000) + "Name = 'x'"
            let parentheses =
                "SELECT Id FROM Account WHERE " + String(repeating: "(", count: 850) + "Name = 'x'" + String(repeating: ")", count: 850)
            var chain = "Name = 'x'"
            for _ in 0..<800 { chain = "(Name = 'y' OR \(chain))" }
            let ors = "SELECT Id FROM Account WHERE \(chain)"
            let semiJoins =
                "SELECT Id FROM Account WHERE " + String(repeating: "Id IN (SELECT AccountId FROM Contact WHERE ", count: 300)
                + "LastName = 'x'" + String(repeating: ")", count: 300)
            for soql in [nots, parentheses, ors, semiJoins] {
                let reply = try await server.query(soql)
                #expect(reply.status == 400)
                #expect(try await errorAfterwards(server, reply) == "QUERY_TOO_COMPLICATED")
            }
            // Within the limit, nesting still works.
            let fine =
                "SELECT Id FROM Account WHERE " + String(repeating: "(", count: 50) + "Name = 'x'" + String(repeating: ")", count: 50)
            #expect(try await server.query(fine).status == 200)
        }
    }

    @Test func longFlatChainsRunAsBalancedSQL() async throws {
        try await withServer { server in
            _ = try await server.create("Account", ["Name": "n2999"])
            // Beyond SQLite's expression depth (1000) as a left-deep chain; within the URL's size.
            let ors = (1800..<3000).map { "Name = 'n\($0)'" }.joined(separator: " OR ")
            let reply = try await server.query("SELECT Name FROM Account WHERE \(ors)")
            #expect(reply.status == 200, "\(reply.message ?? "")")
            #expect(reply.json?["totalSize"] == 1)
            let ands = (0..<1200).map { "Name != 'm\($0)'" }.joined(separator: " AND ")
            #expect(try await server.query("SELECT Name FROM Account WHERE \(ands)").json?["totalSize"] == 1)
        }
    }

    @Test func deeplyNestedSOSLIsTooComplicated() async throws {
        try await withServer { server in
            var terms = "a"
            for _ in 0..<3000 { terms = "a OR (\(terms))" }
            let andNots = "a" + String(repeating: " AND NOT b", count: 3000)
            for text in [terms, andNots] {
                let encoded = "FIND {\(text)}".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                let reply = try await server.send("GET", "search?q=\(encoded)")
                #expect(reply.status == 400)
                #expect(try await errorAfterwards(server, reply) == "QUERY_TOO_COMPLICATED", "\(reply.message ?? "")")
            }
            let manyWords = (0..<1500).map { "w\($0)" }.joined(separator: " ")
            let encoded = "FIND {\(manyWords)}".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            #expect(try await server.send("GET", "search?q=\(encoded)").status == 200)
        }
    }

    @Test func deepQueriesInsideCompositeAreSubrequestErrors() async throws {
        try await withServer { server in
            let soql = "SELECT Id FROM Account WHERE " + String(repeating: "NOT ", count: 1000) + "Name = 'x'"
            let url = "/services/data/v66.0/query?q=" + (soql.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
            let body: JSONValue = ["compositeRequest": [["method": "GET", "url": .string(url), "referenceId": "deep"]]]
            let reply = try await server.send("POST", "composite", json: body)
            let result = reply.json?["compositeResponse"]?.arrayValue?.first
            #expect(result?["httpStatusCode"] == 400)
            #expect(result?["body"]?.arrayValue?.first?["errorCode"] == "QUERY_TOO_COMPLICATED")
            #expect(try await server.query("SELECT Id FROM Account").status == 200)
        }
    }

    @Test func hugeDateLiteralNumbersAreOutOfRange() async throws {
        try await withServer { server in
            for literal in [
                "NEXT_N_DAYS:1000000000000", "LAST_N_DAYS:9223372036854775807", "N_DAYS_AGO:1000000000000",
                "LAST_N_MONTHS:1000000000000", "NEXT_N_WEEKS:200000",
            ] {
                let reply = try await server.query("SELECT Id FROM Account WHERE CreatedDate = \(literal)")
                #expect(reply.status == 400, "\(literal)")
                #expect(try await errorAfterwards(server, reply) == "NUMBER_OUTSIDE_VALID_RANGE")
            }
            let id = try await server.create("Account", ["Name": "Today"])
            // LAST_N_MONTHS and LAST_N_WEEKS end before the current month and week: `>` reaches today.
            for condition in ["= LAST_N_DAYS:1095000", "> LAST_N_MONTHS:36000", "> LAST_N_WEEKS:156000", "< NEXT_N_DAYS:1095000"] {
                let reply = try await server.query("SELECT Id FROM Account WHERE CreatedDate \(condition)")
                #expect(reply.json?["records"]?.arrayValue?.first?["Id"] == .string(id), "\(condition)")
            }
            #expect(try await server.query("SELECT Id FROM Opportunity WHERE CloseDate = NEXT_N_MONTHS:36000").status == 200)
        }
    }

    @Test func repeatedPagingFieldsAreSelectedOnce() async throws {
        try await withServer { server in
            _ = try await server.create("Account", ["Name": "Twice"])
            let reply = try await server.send("GET", "/api/Account?fields=Name,Name,name,Id,Id")
            #expect(reply.status == 200)
            let record = reply.json?["records"]?.arrayValue?.first
            #expect(record?["Name"] == "Twice")
            #expect(record?.objectValue?.count == 2)
        }
    }

    @Test func negativeAndHugeCompositeIndexesAreInvalidReferences() async throws {
        try await withServer { server in
            _ = try await server.create("Account", ["Name": "Only"])
            for index in ["-1", "99999999999999999999", "9223372036854775807"] {
                let body: JSONValue = [
                    "compositeRequest": [
                        ["method": "GET", "url": "/services/data/v66.0/query?q=SELECT+Id+FROM+Account", "referenceId": "q"],
                        [
                            "method": "GET", "url": .string("/services/data/v66.0/sobjects/Account/@{q.records[\(index)].Id}"),
                            "referenceId": "r",
                        ],
                    ]
                ]
                let results = try await server.send("POST", "composite", json: body).json?["compositeResponse"]?.arrayValue ?? []
                #expect(results.last?["httpStatusCode"] == 400, "\(index)")
                #expect(results.last?["body"]?.arrayValue?.first?["errorCode"] == "INVALID_REFERENCE", "\(index)")
            }
            #expect(try await server.query("SELECT Id FROM Account").status == 200)
        }
    }

    @Test func outlandishVersionsAreNotFound() async throws {
        try await withServer { server in
            for version in ["v100000000000000000000.0", "v1e400.0", "v-59.0", "v59.5", "vnan.0"] {
                let reply = try await server.send("GET", "/services/data/\(version)/limits")
                #expect(reply.status == 404, "\(version)")
            }
            let padded = try await server.send("GET", "/services/data/v059.0/limits")
            #expect(padded.status == 200)
        }
    }

    @Test func valuesThatCannotBeStoredExactlyAreRefused() async throws {
        try await withServer { server in
            let nul = try await server.send(
                "POST", "sobjects/Account", rawBody: Data(#"{"Name": "before\u0000after"}"#.utf8),
                headers: ["Content-Type": "application/json"])
            #expect(nul.status == 400)
            #expect(nul.errorCode == "JSON_PARSER_ERROR")
            for number in ["1e999", "-1e999"] {
                let reply = try await server.send(
                    "POST", "sobjects/Opportunity",
                    rawBody: Data(#"{"Name": "Big", "StageName": "New", "CloseDate": "2026-01-01", "Amount": \#(number)}"#.utf8),
                    headers: ["Content-Type": "application/json"])
                #expect(reply.status == 400)
                #expect(reply.errorCode == "JSON_PARSER_ERROR")
            }
            let infinity = try await server.send(
                "POST", "sobjects/Opportunity", json: ["Name": "Inf", "StageName": "New", "CloseDate": "2026-01-01", "Amount": "Infinity"])
            #expect(infinity.status == 400)
            #expect(try await server.query("SELECT Id FROM Opportunity").json?["totalSize"] == 0)
            #expect(try await server.query("SELECT Id FROM Account").json?["totalSize"] == 0)
        }
    }

    @Test func errorMessagesAreBoundedAndShowNoSQL() async throws {
        try await withServer { server in
            let huge = String(repeating: "x", count: 300_000)
            let reply = try await server.send("POST", "sobjects/Account", json: ["Name": .string(huge)])
            #expect(reply.errorCode == "STRING_TOO_LONG")
            #expect((reply.message?.count ?? .max) < 1000)
            #expect(reply.body.count < 2000)
            let mismatch = try await server.send(
                "POST", "sobjects/Account", json: ["NumberOfEmployees": .array(Array(repeating: .string(huge), count: 10))])
            #expect(mismatch.status == 400)
            #expect(mismatch.body.count < 3000)
        }
    }
}
