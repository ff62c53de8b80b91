import FastJSON
import Foundation
import Testing

@testable import LocalForce

/// Bulk API 2.0 query jobs over HTTP: CSV results paged by `maxRecords` and locators, the
/// parallel result pages, queryAll, and what a Bulk query refuses.
@Suite struct BulkQueryTests {
    /// The rows of CSV pages (header dropped), every value quoted, one record a line.
    static func rows(_ page: String) -> [String] {
        Array(page.split(separator: "\n").dropFirst().map(String.init))
    }

    @Test func resultsArePagedByLocatorAcrossStoredChunks() async throws {
        try await withServer { server in
            let bulk = BulkClient(server: server)
            // 4,500 accounts: more than two of the 2,000-row chunks results are stored in.
            let csv = "Name,Industry\n" + (0..<4500).map { String(format: "Account %05d,Energy\n", $0) }.joined()
            let (_, loaded) = try await bulk.load("Account", "insert", csv)
            #expect(loaded["numberRecordsProcessed"]?.int64Value == 4500 && loaded["numberRecordsFailed"]?.int64Value == 0)

            let (id, info) = try await bulk.query("SELECT Id, Name, Owner.Name FROM Account WHERE Industry = 'Energy' ORDER BY Name")
            #expect(info["state"] == "JobComplete" && info["numberRecordsProcessed"]?.int64Value == 4500 && info["jobType"] == "V2Query")
            var names: [String] = []
            var locator: String?
            var pages = 0
            repeat {
                let path = "jobs/query/\(id)/results?maxRecords=1700" + (locator.map { "&locator=\($0)" } ?? "")
                let reply = try await server.send("GET", path)
                let text = String(decoding: reply.body, as: UTF8.self)
                #expect(reply.status == 200 && reply.headers["content-type"] == "text/csv")
                #expect(text.hasPrefix("\"Id\",\"Name\",\"Owner.Name\"\n"))
                let rows = Self.rows(text)
                #expect(reply.headers["sforce-numberofrecords"] == String(rows.count))
                names += rows.map { $0.split(separator: ",")[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
                #expect(rows.allSatisfy { $0.hasSuffix(",\"API User\"") })
                locator = reply.headers["sforce-locator"]
                pages += 1
            } while locator != "null" && pages < 10
            #expect(pages == 3)
            #expect(names == (0..<4500).map { String(format: "Account %05d", $0) })

            // The same rows through the parallel result pages: five links a listing, then the next.
            var links: [String] = []
            var listing: String? = "jobs/query/\(id)/resultPages?maxRecords=800"
            while let next = listing, links.count < 20 {
                let reply = try await server.send("GET", next)
                let page = reply.json?["resultPages"]?.arrayValue?.compactMap { $0["resultLink"]?.stringValue } ?? []
                #expect(page.count == (links.isEmpty ? 5 : 1))
                links += page
                listing = reply.json?["nextRecordsUrl"]?.stringValue
                #expect(reply.json?["done"] == .bool(listing == nil))
            }
            #expect(links.count == 6)
            let all = try await withThrowingTaskGroup(of: [String].self) { group in
                for link in links { group.addTask { Self.rows(try await BulkClient(server: server).text(link)) } }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(all.count == 4500 && Set(all).count == 4500)

            let badLocator = try await server.send("GET", "jobs/query/\(id)/results?locator=bm9wZQ")
            #expect(badLocator.status == 400)
            let huge = try await server.send("GET", "jobs/query/\(id)/resultPages?maxRecords=9223372036854775807&locator=NDUwMA")
            #expect(huge.status == 200 && huge.json?["done"] == true)
            let badMaximum = try await server.send("GET", "jobs/query/\(id)/results?maxRecords=0")
            #expect(badMaximum.status == 400)
            #expect(try await server.send("DELETE", "jobs/query/\(id)").status == 204)
            #expect(try await server.send("GET", "jobs/query/\(id)").status == 404)
        }
    }

    @Test func queryAllSeesDeletedRecordsAndOptionsShapeTheCSV() async throws {
        try await withServer { server in
            let bulk = BulkClient(server: server)
            _ = try await server.create("Account", ["Name": "Kept", "NumberOfEmployees": 3])
            let gone = try await server.create("Account", ["Name": "Gone"])
            #expect(try await server.send("DELETE", "sobjects/Account/\(gone)").status == 204)
            let (live, _) = try await bulk.query("SELECT Name, NumberOfEmployees FROM Account ORDER BY Name")
            #expect(try await bulk.text("jobs/query/\(live)/results") == "\"Name\",\"NumberOfEmployees\"\n\"Kept\",\"3\"\n")
            let (all, _) = try await bulk.query(
                "SELECT Name, IsDeleted FROM Account ORDER BY Name", operation: "queryAll",
                options: ["columnDelimiter": "TAB", "lineEnding": "CRLF"])
            #expect(
                try await bulk.text("jobs/query/\(all)/results")
                    == "\"Name\"\t\"IsDeleted\"\r\n\"Gone\"\t\"true\"\r\n\"Kept\"\t\"false\"\r\n")
            let (none, empty) = try await bulk.query("SELECT Id FROM Account WHERE Name = 'Nobody'")
            #expect(empty["numberRecordsProcessed"]?.int64Value == 0)
            let reply = try await server.send("GET", "jobs/query/\(none)/results")
            #expect(reply.headers["sforce-numberofrecords"] == "0" && reply.headers["sforce-locator"] == "null")
        }
    }

    @Test func whatABulkQueryRefuses() async throws {
        try await withServer { server in
            for (soql, code) in [
                ("SELECT COUNT() FROM Account", "API_ERROR"), ("SELECT Industry, COUNT(Id) FROM Account GROUP BY Industry", "API_ERROR"),
                ("SELECT Id, (SELECT Id FROM Contacts) FROM Account", "API_ERROR"), ("SELECT Id FROM Account OFFSET 5", "API_ERROR"),
                ("SELECT FROM Account", "MALFORMED_QUERY"),
            ] {
                let reply = try await server.send("POST", "jobs/query", json: ["operation": "query", "query": .string(soql)])
                #expect(reply.status == 400 && reply.errorCode == code, "\(soql): \(reply.errorCode ?? "")")
            }
            let (id, failed) = try await BulkClient(server: server).query("SELECT Nope__c FROM Account")
            #expect(failed["state"] == "Failed" && failed["errorMessage"]?.stringValue?.contains("Nope__c") == true)
            let results = try await server.send("GET", "jobs/query/\(id)/results")
            #expect(results.status == 400 && results.errorCode == "INVALIDJOBSTATE")
            let wrongOperation = try await server.send(
                "POST", "jobs/query", json: ["operation": "insert", "query": "SELECT Id FROM Account"])
            #expect(wrongOperation.status == 400 && wrongOperation.errorCode == "INVALIDJOB")
        }
    }
}
