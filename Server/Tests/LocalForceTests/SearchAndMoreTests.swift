import FastJSON
import Foundation
import LocalForceHTTP
import SalesforceWire
import Testing

@testable import LocalForce

@Suite struct SearchAndMoreTests {
    static func encode(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text }

    @Test func soslSearch() async throws {
        try await withServer { server in
            _ = try await server.create("Account", ["Name": "Acme Rockets", "Industry": "Energy"])
            _ = try await server.create("Account", ["Name": "Globex", "Description": "rockets and more"])
            _ = try await server.create("Contact", ["LastName": "Rocketman", "Email": "elton@acme.example"])
            func search(_ sosl: String) async throws -> TestServer.Reply { try await server.send("GET", "search/?q=\(Self.encode(sosl))") }
            let all = try await search("FIND {rocket*} IN ALL FIELDS RETURNING Account(Name ORDER BY Name), Contact(LastName)")
            #expect(all.status == 200)
            let records = all.json?["searchRecords"]?.arrayValue ?? []
            #expect(records.compactMap { ($0["Name"] ?? $0["LastName"])?.stringValue } == ["Acme Rockets", "Globex", "Rocketman"])
            #expect(records.first?["attributes"]?["type"] == "Account")
            let names = try await search("find {rocket*} in name fields returning Account(Name)")
            #expect(names.json?["searchRecords"]?.arrayValue?.compactMap { $0["Name"]?.stringValue } == ["Acme Rockets"])
            let email = try await search("FIND {acme.example} IN EMAIL FIELDS RETURNING Contact(LastName), Account")
            #expect(email.json?["searchRecords"]?.arrayValue?.count == 1)
            let filtered = try await search("FIND {rockets} RETURNING Account(Name WHERE Industry = 'Energy')")
            #expect(filtered.json?["searchRecords"]?.arrayValue?.compactMap { $0["Name"]?.stringValue } == ["Acme Rockets"])
            let logic = try await search("FIND {rockets AND NOT acme} RETURNING Account(Name)")
            #expect(logic.json?["searchRecords"]?.arrayValue?.compactMap { $0["Name"]?.stringValue } == ["Globex"])
            let noReturning = try await search("FIND {Globex}")
            #expect(noReturning.json?["searchRecords"]?.arrayValue?.first?["Id"] != nil)
            #expect(try await search("FIND {nothing-matches} RETURNING Account").json == ["searchRecords": []])
            let limited = try await search("FIND {rocket*} RETURNING Account(Name), Contact LIMIT 1")
            #expect(limited.json?["searchRecords"]?.arrayValue?.count == 1)
            let bad = try await search("FIND rockets")
            #expect(bad.status == 400 && bad.errorCode == "MALFORMED_SEARCH")
            #expect(try await search("FIND {a}").status == 400)

            let parameterized = try await server.send(
                "GET", "parameterizedSearch/?q=rockets&sobject=Account&Account.fields=Id,Name&Account.limit=5")
            #expect(parameterized.json?["searchRecords"]?.arrayValue?.count == 2)
            let posted = try await server.send(
                "POST", "parameterizedSearch",
                json: [
                    "q": "rocket*", "in": "NAME", "fields": ["Name"],
                    "sobjects": [["name": "Account", "where": "Industry = 'Energy'"]],
                ])
            #expect(posted.json?["searchRecords"]?.arrayValue?.compactMap { $0["Name"]?.stringValue } == ["Acme Rockets"])
        }
    }

    @Test func recentAndReplication() async throws {
        try await withServer { server in
            let start = SalesforceTime.format(LocalForce.nowMilliseconds() - 120_000)
            let account = try await server.create("Account", ["Name": "A"])
            let contact = try await server.create("Contact", ["LastName": "C"])
            let recent = try await server.send("GET", "recent?limit=5")
            #expect(recent.json?.arrayValue?.compactMap { $0["Id"]?.stringValue }.prefix(2) == [contact, account])
            #expect(try await server.send("GET", "recent?limit=1").json?.arrayValue?.count == 1)
            _ = try await server.send("DELETE", "sobjects/Contact/\(contact)")
            try await Task.sleep(for: .milliseconds(5))
            let end = SalesforceTime.format(LocalForce.nowMilliseconds() + 120_000)
            let updated = try await server.send("GET", "sobjects/Account/updated/?start=\(Self.encode(start))&end=\(Self.encode(end))")
            #expect(updated.json?["ids"] == [.string(account)])
            #expect(updated.json?["latestDateCovered"]?.stringValue?.hasSuffix(":00.000+0000") == true)
            let deleted = try await server.send("GET", "sobjects/Contact/deleted/?start=\(Self.encode(start))&end=\(Self.encode(end))")
            #expect(deleted.json?["deletedRecords"]?.arrayValue?.first?["id"] == .string(contact))
            let bad = try await server.send("GET", "sobjects/Account/updated/?start=yesterday&end=today")
            #expect(bad.status == 400)
        }
    }

    @Test func briefcasePrimingRecords() async throws {
        let localForce = try await LocalForce(
            database: try await TestServer.database(), token: TestServer.token,
            briefcaseRules: [
                BriefcaseRule(object: "Account", condition: "Industry = 'Energy'"),
                BriefcaseRule(object: "Contact"),
            ])
        let server = try await LocalForceServer.start(localForce)
        defer { Task { await server.stop() } }
        func get(_ path: String) async throws -> JSONValue? {
            let response = await localForce.handle(
                APIRequest(
                    method: "GET", path: "/services/data/v66.0/" + path.split(separator: "?").first.map(String.init)!,
                    query: path.split(separator: "?").dropFirst().first.map(String.init),
                    headers: ["Authorization": "Bearer \(TestServer.token)"], body: []))
            return try? JSONValue(parsing: response.body)
        }
        _ = server
        var energy: [String] = []
        let writer = { (body: [String: JSONValue], object: String) async throws -> String in
            let response = await localForce.handle(
                APIRequest(
                    method: "POST", path: "/services/data/v66.0/sobjects/\(object)", query: nil,
                    headers: ["Authorization": "Bearer \(TestServer.token)"], body: JSONValue.object(body).jsonBytes))
            return try JSONValue(parsing: response.body)["id"]?.stringValue ?? ""
        }
        for index in 0..<1500 { energy.append(try await writer(["Name": .string("E\(index)"), "Industry": "Energy"], "Account")) }
        _ = try await writer(["Name": "Media", "Industry": "Media"], "Account")
        for index in 0..<600 { _ = try await writer(["LastName": .string("C\(index)")], "Contact") }
        let first = try #require(try await get("connect/briefcase/priming-records"))
        #expect(first["stats"]?["recordCountTotal"] == 2100 && first["stats"]?["recordCountServed"] == 2000)
        let accounts = first["primingRecords"]?["Account"]?["012000000000000AAA"]?.arrayValue ?? []
        #expect(accounts.count == 1500 && accounts.first?["id"] == .string(energy[0]))
        #expect(accounts.first?["systemModstamp"]?.stringValue?.hasSuffix("Z") == true)
        let token = try #require(first["relayToken"]?.stringValue)
        let second = try #require(try await get("connect/briefcase/priming-records?relayToken=\(Self.encode(token))"))
        #expect(second["primingRecords"]?["Contact"]?["012000000000000AAA"]?.arrayValue?.count == 100)
        #expect(second["relayToken"] == .some(.null))
        // changedAfterTimestamp: only what changed since (the server's clock, which runs ahead of
        // the wall clock when writes come faster than one per millisecond).
        let latest = await localForce.handle(
            APIRequest(
                method: "GET", path: "/services/data/v66.0/query",
                query: "q=SELECT+SystemModstamp+FROM+Contact+ORDER+BY+SystemModstamp+DESC+LIMIT+1",
                headers: ["Authorization": "Bearer \(TestServer.token)"], body: []))
        let stamp = try #require(try JSONValue(parsing: latest.body)["records"]?.arrayValue?.first?["SystemModstamp"]?.stringValue)
        _ = try await writer(["LastName": "Late"], "Contact")
        let changed = try #require(try await get("connect/briefcase/priming-records?changedAfterTimestamp=\(Self.encode(stamp))"))
        #expect(changed["stats"]?["recordCountTotal"] == 1)
        let conflict = await localForce.handle(
            APIRequest(
                method: "GET", path: "/services/data/v66.0/connect/briefcase/priming-records",
                query: "relayToken=x&changedAfterTimestamp=y",
                headers: ["Authorization": "Bearer \(TestServer.token)"], body: []))
        #expect(conflict.status == 400)
    }

    @Test func layouts() async throws {
        try await withServer { server in
            let layout = try #require(
                try await server.send("GET", "ui-api/layout/Account?formFactor=Medium&layoutType=Compact&mode=View").json)
            #expect(layout["layoutType"] == "Compact" && layout["objectApiName"] == "Account")
            let items =
                layout["sections"]?.arrayValue?.first?["layoutRows"]?.arrayValue?.flatMap { $0["layoutItems"]?.arrayValue ?? [] } ?? []
            #expect(items.contains { $0["layoutComponents"]?.arrayValue?.first?["apiName"] == "Name" })
            #expect(try await server.send("GET", "ui-api/layout/Nope").status == 404)
        }
    }

    @Test func faultInjection() async throws {
        try await withServer { server in
            let faults = server.server.localForce.faults
            await faults.schedule(.requestLimit)
            let limited = try await server.send("GET", "limits")
            #expect(
                limited.status == 403 && limited.errorCode == "REQUEST_LIMIT_EXCEEDED" && limited.message == "TotalRequests Limit exceeded."
            )
            await faults.schedule(.unavailable)
            #expect(try await server.send("GET", "limits").status == 503)
            await faults.schedule(.serverError)
            #expect(try await server.send("GET", "limits").status == 500)
            // Dropped before processing: nothing was created.
            await faults.schedule(.dropBefore) { $0.method == "POST" }
            await #expect(throws: (any Error).self) { _ = try await server.send("POST", "sobjects/Account", json: ["Name": "Lost"]) }
            #expect(try await server.query("SELECT COUNT() FROM Account").json?["totalSize"] == 0)
            // Dropped after processing: the record exists but the client never heard.
            await faults.schedule(.dropAfter) { $0.method == "POST" }
            await #expect(throws: (any Error).self) {
                _ = try await server.send("POST", "sobjects/Account", json: ["Name": "Created silently"])
            }
            #expect(try await server.query("SELECT COUNT() FROM Account").json?["totalSize"] == 1)
            // The versions list is never faulted; random faults at rate 1 hit everything else.
            await faults.configure(rate: 1, kinds: [.unavailable])
            #expect(try await server.send("GET", "/services/data/", authorized: false).status == 200)
            #expect(try await server.send("GET", "limits").status == 503)
            await faults.configure(rate: 0)
            #expect(try await server.send("GET", "limits").status == 200)
        }
    }
}
