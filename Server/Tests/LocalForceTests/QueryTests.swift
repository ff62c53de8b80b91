import FastJSON
import Foundation
@_spi(MSyncInternal) import SalesforceWire
import Testing

@testable import LocalForce

@Suite struct QueryTests {
    /// Accounts A0…A(n-1) with a contact each, and an unrelated contact.
    static func seed(_ server: TestServer, accounts: Int) async throws -> [String] {
        var ids: [String] = []
        for index in 0..<accounts {
            let id = try await server.create(
                "Account",
                [
                    "Name": .string("Account \(index)"), "Industry": index % 2 == 0 ? "Energy" : "Media",
                    "NumberOfEmployees": .int(Int64(index)),
                ])
            _ = try await server.create("Contact", ["LastName": .string("Contact \(index)"), "AccountId": .string(id)])
            ids.append(id)
        }
        _ = try await server.create("Contact", ["LastName": "Loner"])
        return ids
    }

    @Test func selectedFieldsRelationshipsAndSubqueries() async throws {
        try await withServer { server in
            let ids = try await Self.seed(server, accounts: 2)
            let page = try #require(try await server.query("SELECT Name, (SELECT LastName FROM Contacts) FROM Account ORDER BY Name").json)
            #expect(page["totalSize"] == 2 && page["done"] == true && page["nextRecordsUrl"] == nil)
            let first = try #require(page["records"]?.arrayValue?.first)
            #expect(Set(first.objectValue?.keys.map { $0 } ?? []) == ["attributes", "Name", "Contacts"])
            #expect(first["attributes"]?["url"] == .string("/services/data/v66.0/sobjects/Account/\(ids[0])"))
            #expect(first["Contacts"]?["totalSize"] == 1 && first["Contacts"]?["done"] == true)
            #expect(first["Contacts"]?["records"]?.arrayValue?.first?["LastName"] == "Contact 0")
            #expect(first["Contacts"]?["records"]?.arrayValue?.first?["attributes"]?["type"] == "Contact")

            let contacts = try await server.allRecords("SELECT LastName, Account.Name, Account.Owner.Name FROM Contact ORDER BY LastName")
            #expect(contacts.count == 3)
            #expect(contacts[0]["Account"]?["Name"] == "Account 0")
            #expect(contacts[0]["Account"]?["attributes"]?["type"] == "Account")
            #expect(contacts[0]["Account"]?["Owner"]?["Name"] == "API User")
            #expect(contacts[2]["LastName"] == "Loner" && contacts[2]["Account"] == .some(.null))
            // No children → null, not an empty list.
            let lonely = try await server.create("Account", ["Name": "Lonely"])
            let empty = try await server.query("SELECT Id, (SELECT Id FROM Contacts) FROM Account WHERE Id = '\(lonely)'")
            #expect(empty.json?["records"]?.arrayValue?.first?["Contacts"] == .some(.null))
            // Alias and self-qualified names are stripped; keys use canonical casing.
            let aliased = try await server.query("select a.name, account.industry from account a where a.NAME = 'ACCOUNT 1'")
            #expect(aliased.json?["records"]?.arrayValue?.first?["Name"] == "Account 1")
            #expect(aliased.json?["records"]?.arrayValue?.first?["Industry"] == "Media")
        }
    }

    /// More than 200 children: the first 200 inline, the rest behind the subquery's own
    /// `nextRecordsUrl` (as Salesforce pages child relationships).
    @Test func longChildListsArePaged() async throws {
        try await withServer { server in
            let account = try await server.create("Account", ["Name": "Parent"])
            let small = try await server.create("Account", ["Name": "Small"])
            for start in stride(from: 0, to: 250, by: 50) {
                let records: [JSONValue] = (start..<start + 50).map {
                    ["attributes": ["type": "Contact"], "LastName": .string(String(format: "L%03d", $0)), "AccountId": .string(account)]
                }
                #expect(try await server.send("POST", "composite/sobjects", json: ["records": .array(records)]).status == 200)
            }
            _ = try await server.create("Contact", ["LastName": "Only", "AccountId": .string(small)])
            let reply = try await server.query("SELECT Name, (SELECT LastName FROM Contacts ORDER BY LastName) FROM Account ORDER BY Name")
            let records = reply.json?["records"]?.arrayValue ?? []
            let nested = try #require(records.first?["Contacts"])
            #expect(nested["totalSize"] == 250 && nested["done"] == false && nested["records"]?.arrayValue?.count == 200)
            #expect(records.last?["Contacts"]?["done"] == true && records.last?["Contacts"]?["nextRecordsUrl"] == nil)
            let next = try #require(nested["nextRecordsUrl"]?.stringValue)
            #expect(next.hasPrefix("/services/data/v66.0/query/01g") && next.hasSuffix("-200"))
            let rest = try await server.send("GET", next)
            #expect(rest.json?["totalSize"] == 250 && rest.json?["done"] == true)
            let names = rest.json?["records"]?.arrayValue?.compactMap { $0["LastName"]?.stringValue } ?? []
            #expect(names.count == 50 && names.first == "L200" && names.last == "L249")
            #expect(rest.json?["records"]?.arrayValue?.first?["attributes"]?["type"] == "Contact")
        }
    }

    @Test func pagingWithBatchSizeAndSnapshot() async throws {
        try await withServer { server in
            for index in 0..<450 {
                _ = try await server.create("Lead", ["LastName": .string(String(format: "L%04d", index)), "Company": "C"])
            }
            let options = ["Sforce-Query-Options": "batchSize=200"]
            let first = try await server.query("SELECT Id, LastName FROM Lead ORDER BY LastName", headers: options)
            #expect(first.json?["totalSize"] == 450 && first.json?["done"] == false)
            #expect(first.json?["records"]?.arrayValue?.count == 200)
            let next = try #require(first.json?["nextRecordsUrl"]?.stringValue)
            #expect(next.hasPrefix("/services/data/v66.0/query/01g") && next.hasSuffix("-200"))
            // A write between pages does not shift the snapshot.
            _ = try await server.create("Lead", ["LastName": "A0000 first", "Company": "C"])
            let second = try await server.send("GET", next)
            #expect(second.json?["records"]?.arrayValue?.first?["LastName"] == "L0200")
            let third = try await server.send("GET", try #require(second.json?["nextRecordsUrl"]?.stringValue))
            #expect(third.json?["records"]?.arrayValue?.count == 50 && third.json?["done"] == true && third.json?["nextRecordsUrl"] == nil)
            // Re-reading a page works; an unknown locator is INVALID_QUERY_LOCATOR.
            #expect(try await server.send("GET", next).json?["records"]?.arrayValue?.count == 200)
            let bogus = try await server.send("GET", "query/01gXXXXXXXXXXXXXXX-200")
            #expect(bogus.status == 400 && bogus.errorCode == "INVALID_QUERY_LOCATOR")
            // Default batch is 2000; batchSize is clamped to at least 200.
            let small = try await server.query("SELECT Id FROM Lead", headers: ["Sforce-Query-Options": "batchSize=10"])
            #expect(small.json?["records"]?.arrayValue?.count == 200)
            #expect(try await server.allRecords("SELECT Id FROM Lead").count == 451)
        }
    }

    @Test func queryAllSeesTheRecycleBin() async throws {
        try await withServer { server in
            let id = try await server.create("Account", ["Name": "Doomed"])
            _ = try await server.send("DELETE", "sobjects/Account/\(id)")
            #expect(try await server.query("SELECT Id FROM Account").json?["totalSize"] == 0)
            let all = try await server.query("SELECT Id, IsDeleted FROM Account", all: true)
            #expect(all.json?["totalSize"] == 1 && all.json?["records"]?.arrayValue?.first?["IsDeleted"] == true)
            #expect(try await server.query("SELECT Id FROM Account WHERE IsDeleted = true", all: true).json?["totalSize"] == 1)
        }
    }

    @Test func filtersAndOrdering() async throws {
        try await withServer { server in
            let ids = try await Self.seed(server, accounts: 6)
            _ = try await server.create("Account", ["Name": "Nameless Inc"]) // NumberOfEmployees null
            func names(_ soql: String) async throws -> [String] {
                try await server.allRecords(soql).compactMap { $0["Name"]?.stringValue }
            }
            #expect(
                try await names("SELECT Name FROM Account WHERE Industry = 'energy' ORDER BY Name") == [
                    "Account 0", "Account 2", "Account 4",
                ])
            #expect(
                try await names("SELECT Name FROM Account WHERE NumberOfEmployees >= 4 ORDER BY NumberOfEmployees DESC") == [
                    "Account 5", "Account 4",
                ])
            #expect(
                try await names("SELECT Name FROM Account WHERE Industry != 'Energy' ORDER BY Name") == [
                    "Account 1", "Account 3", "Account 5", "Nameless Inc",
                ])
            #expect(try await names("SELECT Name FROM Account WHERE Industry = null") == ["Nameless Inc"])
            #expect(try await names("SELECT Name FROM Account ORDER BY NumberOfEmployees LIMIT 2") == ["Nameless Inc", "Account 0"])
            #expect(try await names("SELECT Name FROM Account ORDER BY NumberOfEmployees ASC NULLS LAST LIMIT 1") == ["Account 0"])
            #expect(try await names("SELECT Name FROM Account ORDER BY Name LIMIT 2 OFFSET 5") == ["Account 5", "Nameless Inc"])
            #expect(
                try await names(
                    "SELECT Name FROM Account WHERE Name LIKE 'account _' AND (NumberOfEmployees = 1 OR NumberOfEmployees = 2) ORDER BY Name"
                )
                    == ["Account 1", "Account 2"])
            #expect(try await names("SELECT Name FROM Account WHERE NOT Name LIKE 'Account%'") == ["Nameless Inc"])
            #expect(
                try await names("SELECT Name FROM Account WHERE Id IN ('\(ids[1])', '', '\(ids[3].prefix(15))') ORDER BY Name") == [
                    "Account 1", "Account 3",
                ])
            #expect(try await names("SELECT Name FROM Account WHERE Id IN ('')").isEmpty)
            #expect(
                try await names("SELECT Name FROM Account WHERE Id IN (SELECT AccountId FROM Contact WHERE LastName = 'Contact 4')") == [
                    "Account 4"
                ])
            #expect(
                try await names("SELECT Name FROM Account WHERE Id NOT IN (SELECT AccountId FROM Contact WHERE AccountId != null)") == [
                    "Nameless Inc"
                ])
            let contacts = try await server.allRecords(
                "SELECT LastName FROM Contact WHERE Account.Industry = 'Media' ORDER BY Account.Name DESC")
            #expect(contacts.compactMap { $0["LastName"]?.stringValue } == ["Contact 5", "Contact 3", "Contact 1"])
            let count = try await server.query("SELECT COUNT() FROM Account WHERE Industry = 'Energy'")
            #expect(count.json == ["totalSize": 3, "done": true, "records": []])
            #expect(try await server.query("SELECT COUNT() FROM Account LIMIT 2").json?["totalSize"] == 2)
        }
    }

    @Test func datesAndDateLiterals() async throws {
        try await withServer { server in
            _ = try await server.create("Opportunity", ["Name": "Past", "StageName": "Prospecting", "CloseDate": "2020-01-15"])
            let today = SalesforceTime.formatDate(days: Int64(Date().timeIntervalSince1970) / 86_400)
            _ = try await server.create("Opportunity", ["Name": "Today", "StageName": "Prospecting", "CloseDate": .string(today)])
            func names(_ soql: String) async throws -> [String] {
                try await server.allRecords(soql).compactMap { $0["Name"]?.stringValue }
            }
            #expect(try await names("SELECT Name FROM Opportunity WHERE CloseDate = TODAY") == ["Today"])
            #expect(try await names("SELECT Name FROM Opportunity WHERE CloseDate < LAST_N_DAYS:30") == ["Past"])
            #expect(try await names("SELECT Name FROM Opportunity WHERE CloseDate = 2020-01-15") == ["Past"])
            #expect(try await names("SELECT Name FROM Opportunity WHERE CreatedDate = TODAY ORDER BY Name") == ["Past", "Today"])
            #expect(
                try await names("SELECT Name FROM Opportunity WHERE CreatedDate > 2020-01-01T00:00:00.000+0000 ORDER BY Name") == [
                    "Past", "Today",
                ])
            #expect(try await names("SELECT Name FROM Opportunity WHERE CreatedDate > 2999-01-01T00:00:00Z").isEmpty)
            let first = try #require(
                try await server.allRecords("SELECT LastModifiedDate FROM Opportunity ORDER BY LastModifiedDate").first)
            let stamp = try #require(first["LastModifiedDate"]?.stringValue)
            // The Mobile SDK's resync filter: strictly after the max seen, in its own format.
            #expect(try await names("SELECT Name FROM Opportunity WHERE LastModifiedDate > \(stamp)") == ["Today"])
            #expect(
                try await names("SELECT Name FROM Opportunity WHERE LastModifiedDate >= \(stamp) ORDER BY LastModifiedDate") == [
                    "Past", "Today",
                ])
            let mismatch = try await server.query("SELECT Name FROM Opportunity WHERE CloseDate > 2020-01-01T00:00:00Z")
            #expect(mismatch.status == 400 && mismatch.errorCode == "INVALID_FIELD")
            let quoted = try await server.query("SELECT Name FROM Opportunity WHERE CreatedDate > '2020-01-01'")
            #expect(quoted.status == 400 && quoted.errorCode == "INVALID_FIELD")
        }
    }

    @Test func queryErrors() async throws {
        try await withServer { server in
            let malformed = try await server.query("SELEKT Name FROM Account")
            #expect(malformed.status == 400 && malformed.json == [["message": "unexpected token: SELEKT", "errorCode": "MALFORMED_QUERY"]])
            let column = try await server.query("SELECT Bacon__c FROM Account LIMIT 2")
            #expect(column.errorCode == "INVALID_FIELD")
            #expect(
                column.message
                    == "\nSELECT Bacon__c FROM Account LIMIT 2\n       ^\nERROR at Row:1:Column:8\nNo such column 'Bacon__c' on entity 'Account'. If you are attempting to use a custom field, be sure to append the '__c' after the custom field name. Please reference your WSDL or the describe call for the appropriate names."
            )
            #expect(try await server.query("SELECT Id FROM Foo__c").errorCode == "INVALID_TYPE")
            #expect(try await server.query("SELECT Id FROM Account WHERE A = 1 AND B = 2 OR C = 3").errorCode == "MALFORMED_QUERY")
            #expect(try await server.query("SELECT Id FROM Account OFFSET 2001").errorCode == "NUMBER_OUTSIDE_VALID_RANGE")
            #expect(try await server.query("SELECT Id, (SELECT Id FROM Nothing) FROM Account").errorCode == "INVALID_TYPE")
            #expect(try await server.query("SELECT Id FROM Contact WHERE Acount.Name = 'x'").errorCode == "INVALID_FIELD")
            #expect(try await server.query("SELECT Id FROM Account WHERE Name = 5").errorCode == "INVALID_FIELD")
            #expect(try await server.query("SELECT Id FROM Account WHERE Id = 'garbage'").errorCode == "INVALID_FIELD")
            let missing = try await server.send("GET", "query")
            #expect(missing.status == 400 && missing.errorCode == "MALFORMED_QUERY")
            // A hostile value is a bound value: the table is still there.
            _ = try await server.create("Account", ["Name": "Safe"])
            let injection = try await server.query("SELECT Id FROM Account WHERE Name = 'x\\' OR 1=1; DROP TABLE \"Account\"; --'")
            #expect(injection.status == 200 && injection.json?["totalSize"] == 0)
            #expect(try await server.query("SELECT COUNT() FROM Account").json?["totalSize"] == 1)
        }
    }

    @Test func longURLsAndEncodings() async throws {
        try await withServer { server in
            let id = try await server.create("Account", ["Name": "A+B / C"])
            let ids = (0..<700).map { "'\(SalesforceId(prefix: "001", sequence: UInt64(10_000 + $0)).value)'" } + ["'\(id)'"]
            let soql = "SELECT Name FROM Account WHERE Id IN (\(ids.joined(separator: ", ")))"
            let reply = try await server.query(soql)
            #expect(soql.utf8.count > 15_000)
            #expect(reply.status == 200 && reply.json?["records"]?.arrayValue?.first?["Name"] == "A+B / C")
            // '+' in a query string is a space, %2B a plus.
            let plus = try await server.send("GET", "query/?q=SELECT+Name+FROM+Account+WHERE+Name+%3D+%27A%2BB+%2F+C%27")
            #expect(plus.json?["totalSize"] == 1)
        }
    }
}
