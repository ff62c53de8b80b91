import FastJSON
import Foundation
@_spi(MSyncInternal) import SalesforceWire
import Testing

@testable import LocalForce

@Suite struct UpsertAndDescribeTests {
    @Test func upsertByExternalId() async throws {
        try await withServer { server in
            let created = try await server.send("PATCH", "sobjects/Invoice__c/Invoice_Number__c/INV-1", json: ["Name": "First"])
            #expect(created.status == 201 && created.json?["created"] == true && created.json?["success"] == true)
            let id = try #require(created.json?["id"]?.stringValue)
            let updated = try await server.send("PATCH", "sobjects/Invoice__c/Invoice_Number__c/INV-1", json: ["Name": "Renamed"])
            #expect(updated.status == 200 && updated.json == ["id": .string(id), "success": true, "errors": [], "created": false])
            let fetched = try await server.send("GET", "sobjects/Invoice__c/Invoice_Number__c/INV-1")
            #expect(fetched.json?["Name"] == "Renamed" && fetched.json?["Invoice_Number__c"] == "INV-1")
            // Before API 46.0 an update answers 204 without a body.
            let old = try await server.send(
                "PATCH", "/services/data/v45.0/sobjects/Invoice__c/Invoice_Number__c/INV-1", json: ["Name": "Old API"])
            #expect(old.status == 204)
            // The body may repeat the same external id, not a different one.
            #expect(
                try await server.send(
                    "PATCH", "sobjects/Invoice__c/Invoice_Number__c/INV-1", json: ["Name": "x", "Invoice_Number__c": "INV-1"]
                ).status == 200)
            #expect(
                try await server.send(
                    "PATCH", "sobjects/Invoice__c/Invoice_Number__c/INV-1", json: ["Name": "x", "Invoice_Number__c": "INV-2"]
                ).status == 400)
            // A field that is not an external id is 404; so is an unknown one.
            #expect(try await server.send("PATCH", "sobjects/Invoice__c/Name/INV-1", json: ["Status__c": "Paid"]).status == 404)
            #expect(try await server.send("PATCH", "sobjects/Invoice__c/Bogus__c/INV-1", json: ["Name": "x"]).status == 404)
            // Encoded slashes stay inside their segment.
            let slashed = try await server.send("PATCH", "sobjects/Invoice__c/Invoice_Number__c/2024%2F007", json: ["Name": "Slash"])
            #expect(slashed.status == 201)
            #expect(
                try await server.send("GET", "sobjects/Invoice__c/Invoice_Number__c/2024%2F007").json?["Invoice_Number__c"] == "2024/007")
            #expect(try await server.send("DELETE", "sobjects/Invoice__c/Invoice_Number__c/2024%2F007").status == 204)
            #expect(try await server.send("GET", "sobjects/Invoice__c/Invoice_Number__c/2024%2F007").status == 404)
        }
    }

    @Test func upsertByIdAndCreateThroughId() async throws {
        try await withServer { server in
            let created = try await server.send("POST", "sobjects/Account/Id/", json: ["Name": "Via Id"])
            #expect(created.status == 201 && created.json?["created"] == true)
            let id = try #require(created.json?["id"]?.stringValue)
            let updated = try await server.send("PATCH", "sobjects/Account/Id/\(id)", json: ["Name": "Updated via Id"])
            #expect(updated.status == 200 && updated.json?["created"] == false)
            #expect(
                try await server.send(
                    "PATCH", "sobjects/Account/Id/\(SalesforceId(prefix: "001", sequence: 777).value)", json: ["Name": "x"]
                ).status == 404)
        }
    }

    @Test func severalMatchesAnswer300() async throws {
        let schema = try SchemaFile.load(
            Data(
                """
                {"objects": [{"name": "Gadget__c", "keyPrefix": "a0G",
                              "fields": [{"name": "Code__c", "type": "string", "externalId": true}]}]}
                """.utf8))
        try await withServer(schema: schema) { server in
            _ = try await server.create("Gadget__c", ["Name": "one", "Code__c": "G"])
            _ = try await server.create("Gadget__c", ["Name": "two", "Code__c": "g"]) // external ids match case-insensitively
            let reply = try await server.send("PATCH", "sobjects/Gadget__c/Code__c/G", json: ["Name": "x"])
            #expect(reply.status == 300 && reply.json?.arrayValue?.count == 2)
            #expect(reply.json?.arrayValue?.first?.stringValue?.hasPrefix("/services/data/v66.0/sobjects/Gadget__c/a0G") == true)
        }
    }

    @Test func describeGlobalAndDescribe() async throws {
        try await withServer { server in
            let global = try await server.send("GET", "sobjects")
            let objects = global.json?["sobjects"]?.arrayValue ?? []
            let names = Set(objects.compactMap { $0["name"]?.stringValue })
            #expect(names.isSuperset(of: ["Account", "Contact", "Opportunity", "Case", "Lead", "User", "Invoice__c"]))
            let account = try #require(objects.first { $0["name"] == "Account" })
            #expect(account["keyPrefix"] == "001" && account["urls"]?["describe"] == "/services/data/v66.0/sobjects/Account/describe")
            let lastModified = try #require(global.headers["last-modified"])
            #expect(try await server.send("GET", "sobjects", headers: ["If-Modified-Since": lastModified]).status == 304)
            #expect(try await server.send("GET", "sobjects", headers: ["If-Modified-Since": "Sun, 01 Jan 2023 00:00:00 GMT"]).status == 200)

            let describe = try #require(try await server.send("GET", "sobjects/Contact/describe").json)
            let fields = describe["fields"]?.arrayValue ?? []
            let accountId = try #require(fields.first { $0["name"] == "AccountId" })
            #expect(
                accountId["type"] == "reference" && accountId["referenceTo"] == ["Account"] && accountId["relationshipName"] == "Account")
            #expect(fields.first { $0["name"] == "LastName" }?["nillable"] == false)
            #expect(fields.first { $0["name"] == "Id" }?["type"] == "id")
            let invoice = try #require(try await server.send("GET", "sobjects/Invoice__c/describe").json)
            let children = invoice["childRelationships"]?.arrayValue ?? []
            #expect(
                children.contains {
                    $0["relationshipName"] == "Invoice_Lines__r" && $0["cascadeDelete"] == true && $0["childSObject"] == "Invoice_Line__c"
                })
            #expect(invoice["fields"]?.arrayValue?.first { $0["name"] == "Invoice_Number__c" }?["externalId"] == true)
        }
    }

    @Test func basicInfoListsRecentItems() async throws {
        try await withServer { server in
            let ids = [try await server.create("Account", ["Name": "One"]), try await server.create("Account", ["Name": "Two"])]
            let info = try #require(try await server.send("GET", "sobjects/Account/").json)
            #expect(info["objectDescribe"]?["name"] == "Account")
            #expect(info["recentItems"]?.arrayValue?.compactMap { $0["Id"]?.stringValue } == ids.reversed())
            #expect(info["recentItems"]?.arrayValue?.first?["Name"] == "Two")
            _ = try await server.query("SELECT Id FROM Account WHERE Name = 'One' FOR VIEW")
            let viewed = try #require(try await server.send("GET", "sobjects/Account").json)
            #expect(viewed["recentItems"]?.arrayValue?.first?["Id"] == .string(ids[0]))
        }
    }

    @Test func schemaFiles() throws {
        let schema = try SchemaFile.load(
            Data(
                """
                {"objects": [{"name": "Project__c", "label": "Project", "keyPrefix": "a05",
                              "fields": [{"name": "Code__c", "type": "string", "length": 20, "required": true, "externalId": true, "unique": true},
                                         {"name": "Account__c", "type": "reference", "referenceTo": "Account", "relationshipName": "Account__r",
                                          "childRelationshipName": "Projects__r", "relationshipKind": "masterDetail"}]}],
                 "fields": {"Account": [{"name": "Region__c", "type": "picklist", "picklistValues": ["EMEA", "APAC"]}]}}
                """.utf8))
        #expect(schema.object(named: "project__c")?.field(named: "Code__c")?.required == true)
        #expect(schema.object(named: "Account")?.field(named: "Region__c")?.type == .picklist)
        #expect(schema.childRelationship("Projects__r", of: "Account")?.kind == .masterDetail)
        #expect(schema.object(named: "Project__c")?.field(named: "Name") != nil)
        for bad in [
            #"{"objects": [{"name": "NoSuffix", "keyPrefix": "a09"}]}"#,
            #"{"objects": [{"name": "Dup__c", "keyPrefix": "001"}]}"#,
            #"{"objects": [{"name": "X__c", "keyPrefix": "a09", "fields": [{"name": "R__c", "type": "reference", "referenceTo": "Nope", "relationshipName": "R__r"}]}]}"#,
            #"{"objects": [{"name": "Y__c", "keyPrefix": "a09", "fields": [{"name": "Bad Name__c", "type": "string"}]}]}"#,
            #"{"fields": {"Account": [{"name": "Plain", "type": "string"}]}}"#,
            #"{"objects": [{"name": "Z__c", "keyPrefix": "a09", "fields": [{"name": "T__c", "type": "weird"}]}]}"#,
            "not json",
        ] {
            #expect(throws: SchemaError.self) { try SchemaFile.load(Data(bad.utf8)) }
        }
    }
}
