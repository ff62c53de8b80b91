import FastJSON
import Foundation
@_spi(MSyncInternal) import SalesforceWire
import Testing

@testable import LocalForce

@Suite struct RecordTests {
    @Test func createRetrieveUpdateDelete() async throws {
        try await withServer { server in
            let created = try await server.send(
                "POST", "sobjects/Account/",
                json: [
                    "Name": "Acme", "Industry": "Energy", "NumberOfEmployees": 12,
                    "attributes": ["type": "Account"],
                ])
            #expect(created.status == 201)
            let id = try #require(created.json?["id"]?.stringValue)
            #expect(created.json == ["id": .string(id), "success": true, "errors": []])
            #expect(created.headers["location"] == "/services/data/v66.0/sobjects/Account/\(id)")
            #expect(id.hasPrefix("001") && id.count == 18)

            let record = try #require(try await server.send("GET", "sobjects/Account/\(id)").json)
            #expect(record["attributes"] == ["type": "Account", "url": .string("/services/data/v66.0/sobjects/Account/\(id)")])
            #expect(record["Name"] == "Acme" && record["NumberOfEmployees"] == 12 && record["IsDeleted"] == false)
            #expect(record["Phone"] == .some(.null)) // fields are present with null
            let created15 = String(id.prefix(15))
            #expect(try await server.send("GET", "sobjects/Account/\(created15)").status == 200)
            let stamp = try #require(record["LastModifiedDate"]?.stringValue)
            #expect(stamp.hasSuffix("+0000") && stamp.count == 28 && record["CreatedDate"] == record["LastModifiedDate"])
            #expect(record["OwnerId"] == record["CreatedById"])

            let some = try #require(try await server.send("GET", "sobjects/Account/\(id)?fields=Name,%20LastModifiedDate").json)
            #expect(Set(some.objectValue?.keys.map { $0 } ?? []) == ["attributes", "Id", "Name", "LastModifiedDate"])

            let update = try await server.send("PATCH", "sobjects/Account/\(id)", json: ["Name": "Acme Rockets", "Phone": "555"])
            #expect(update.status == 204 && update.body.isEmpty)
            let updated = try #require(try await server.send("GET", "sobjects/Account/\(id)").json)
            #expect(updated["Name"] == "Acme Rockets" && updated["Phone"] == "555")
            #expect((updated["LastModifiedDate"]?.stringValue ?? "") > stamp)

            #expect(try await server.send("DELETE", "sobjects/Account/\(id)").status == 204)
            let gone = try await server.send("GET", "sobjects/Account/\(id)")
            #expect(gone.status == 404 && gone.errorCode == "NOT_FOUND")
            let again = try await server.send("DELETE", "sobjects/Account/\(id)")
            #expect(again.status == 404 && again.errorCode == "ENTITY_IS_DELETED" && again.message == "entity is deleted")
            #expect(again.json?.arrayValue?.first?["fields"] == [])
            let patchDeleted = try await server.send("PATCH", "sobjects/Account/\(id)", json: ["Name": "x"])
            #expect(patchDeleted.status == 404 && patchDeleted.errorCode == "ENTITY_IS_DELETED")
        }
    }

    @Test func idErrors() async throws {
        try await withServer { server in
            let malformed = try await server.send("PATCH", "sobjects/Account/a00B000000FSjVUIB1", json: ["Name": "x"])
            #expect(malformed.status == 400 && malformed.errorCode == "MALFORMED_ID")
            #expect(malformed.message == "Record ID: id value of incorrect type: a00B000000FSjVUIB1")
            #expect(malformed.json?.arrayValue?.first?["fields"] == ["Id"])
            #expect(try await server.send("GET", "sobjects/Account/001000000000001AAAX").errorCode == "MALFORMED_ID")
            let missing = try await server.send("DELETE", "sobjects/Account/\(SalesforceId(prefix: "001", sequence: 999).value)")
            #expect(missing.status == 404 && missing.errorCode == "NOT_FOUND")
        }
    }

    @Test func validationErrors() async throws {
        try await withServer { server in
            func error(_ body: JSONValue, _ object: String = "Account") async throws -> TestServer.Reply {
                try await server.send("POST", "sobjects/\(object)", json: body)
            }
            let required = try await error(["Industry": "Energy"])
            #expect(required.status == 400 && required.errorCode == "REQUIRED_FIELD_MISSING")
            #expect(required.message == "Required fields are missing: [Name]" && required.json?.arrayValue?.first?["fields"] == ["Name"])
            let unknown = try await error(["Name": "x", "FavoritePet__c": "dog"])
            #expect(unknown.errorCode == "INVALID_FIELD" && unknown.message == "No such column 'FavoritePet__c' on sobject of type Account")
            let readOnly = try await error(["Name": "x", "CreatedDate": "2024-01-01T00:00:00Z"])
            #expect(readOnly.errorCode == "INVALID_FIELD_FOR_INSERT_UPDATE")
            let long = try await error(["Name": .string(String(repeating: "x", count: 256))])
            #expect(long.errorCode == "STRING_TOO_LONG" && long.message?.hasPrefix("Account Name: data value too large") == true)
            let type = try await error(["Name": "x", "NumberOfEmployees": "many"])
            #expect(type.status == 400 && type.errorCode == "JSON_PARSER_ERROR")
            let badJSON = try await server.send("POST", "sobjects/Account", rawBody: Data("{\"Name\": ".utf8))
            #expect(badJSON.status == 400 && badJSON.errorCode == "JSON_PARSER_ERROR")
            let email = try await error(["LastName": "x", "Email": "not an email"], "Contact")
            #expect(email.errorCode == "INVALID_EMAIL_ADDRESS")
            let badReference = try await error(
                ["LastName": "x", "AccountId": .string(SalesforceId(prefix: "001", sequence: 4242).value)], "Contact")
            #expect(badReference.errorCode == "INVALID_CROSS_REFERENCE_KEY")
            let wrongType = try await error(
                ["LastName": "x", "AccountId": .string(SalesforceId(prefix: "003", sequence: 1).value)], "Contact")
            #expect(wrongType.errorCode == "FIELD_INTEGRITY_EXCEPTION")
            let unknownObject = try await error(["Name": "x"], "Foo__c")
            #expect(unknownObject.status == 404 && unknownObject.errorCode == "NOT_FOUND")
            // Nothing was created by the failed calls.
            #expect(try await server.query("SELECT COUNT() FROM Account").json?["totalSize"] == 0)
        }
    }

    @Test func ifUnmodifiedSince() async throws {
        try await withServer { server in
            let id = try await server.create("Account", ["Name": "Acme"])
            let old = "Sun, 01 Jan 2023 00:00:00 GMT"
            let stale = try await server.send("PATCH", "sobjects/Account/\(id)", json: ["Name": "B"], headers: ["If-Unmodified-Since": old])
            #expect(stale.status == 412)
            let future = "Fri, 01 Jan 2100 00:00:00 GMT"
            #expect(
                try await server.send("PATCH", "sobjects/Account/\(id)", json: ["Name": "B"], headers: ["If-Unmodified-Since": future])
                    .status == 204)
            let garbage = try await server.send(
                "PATCH", "sobjects/Account/\(id)", json: ["Name": "C"], headers: ["If-Unmodified-Since": "yesterday"])
            #expect(garbage.status == 400)
            #expect(try await server.send("GET", "sobjects/Account/\(id)").json?["Name"] == "B")
        }
    }

    @Test func computedFieldsAndDefaults() async throws {
        try await withServer { server in
            let contact = try await server.create("Contact", ["FirstName": "Ada", "LastName": "Lovelace"])
            #expect(try await server.send("GET", "sobjects/Contact/\(contact)").json?["Name"] == "Ada Lovelace")
            _ = try await server.send("PATCH", "sobjects/Contact/\(contact)", json: ["FirstName": "Augusta Ada"])
            #expect(try await server.send("GET", "sobjects/Contact/\(contact)").json?["Name"] == "Augusta Ada Lovelace")
            let caseId = try await server.create("Case", ["Subject": "Broken"])
            let record = try await server.send("GET", "sobjects/Case/\(caseId)").json
            #expect(record?["Status"] == "New" && record?["Priority"] == "Medium" && record?["CaseNumber"] == "00001000")
        }
    }

    @Test func lastModifiedDateIsStrictlyIncreasing() async throws {
        try await withServer { server in
            var ids: [String] = []
            for index in 0..<30 { ids.append(try await server.create("Account", ["Name": .string("A\(index)")])) }
            let records = try await server.allRecords("SELECT Id, LastModifiedDate FROM Account ORDER BY LastModifiedDate")
            let stamps = records.compactMap { $0["LastModifiedDate"]?.stringValue }
            #expect(stamps.count == 30 && Set(stamps).count == 30 && stamps == stamps.sorted())
            #expect(records.compactMap { $0["Id"]?.stringValue } == ids)
        }
    }

    @Test func masterDetailDeleteCascadesAndLookupsAreCleared() async throws {
        try await withServer { server in
            let account = try await server.create("Account", ["Name": "Acme"])
            let contact = try await server.create("Contact", ["LastName": "Smith", "AccountId": .string(account)])
            let invoice = try await server.create("Invoice__c", ["Name": "INV-1", "Account__c": .string(account)])
            let line = try await server.create("Invoice_Line__c", ["Name": "L1", "Invoice__c": .string(invoice), "Amount__c": 10])
            #expect(try await server.send("DELETE", "sobjects/Invoice__c/\(invoice)").status == 204)
            #expect(try await server.send("GET", "sobjects/Invoice_Line__c/\(line)").status == 404)
            let recycled = try await server.query("SELECT Id, IsDeleted FROM Invoice_Line__c", all: true)
            #expect(recycled.json?["records"]?.arrayValue?.first?["IsDeleted"] == true)
            #expect(try await server.send("DELETE", "sobjects/Account/\(account)").status == 204)
            #expect(try await server.send("GET", "sobjects/Contact/\(contact)").json?["AccountId"] == .some(.null))
        }
    }
}
