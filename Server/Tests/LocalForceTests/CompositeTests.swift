import FastJSON
import Foundation
@_spi(MSyncInternal) import SalesforceWire
import Testing

@testable import LocalForce

@Suite struct CompositeTests {
    @Test func compositeWithReferences() async throws {
        try await withServer { server in
            let body: JSONValue = [
                "allOrNone": false,
                "compositeRequest": [
                    [
                        "method": "POST", "url": "/services/data/v66.0/sobjects/Account", "referenceId": "refAccount",
                        "body": ["Name": "Acme"],
                    ],
                    [
                        "method": "POST", "url": "/services/data/v66.0/sobjects/Contact", "referenceId": "local_000000001",
                        "body": ["LastName": "X", "AccountId": "@{refAccount.id}"], "httpHeaders": nil,
                    ],
                    [
                        "method": "GET", "url": "/services/data/v66.0/query?q=select+Id,+AccountId+from+Contact+where+LastName+=+'X'",
                        "referenceId": "refQuery",
                    ],
                    [
                        "method": "PATCH", "url": "/services/data/v66.0/sobjects/Account/@{refAccount.id}", "referenceId": "update",
                        "body": ["Phone": "@{refQuery.records[0].Id}"],
                    ],
                    [
                        "method": "GET", "url": "/services/data/v66.0/sobjects/Account/@{refAccount.id}?fields=Name,Phone",
                        "referenceId": "read",
                    ],
                ],
            ]
            let reply = try await server.send("POST", "composite", json: body)
            #expect(reply.status == 200)
            let results = reply.json?["compositeResponse"]?.arrayValue ?? []
            #expect(results.map { $0["httpStatusCode"] } == [201, 201, 200, 204, 200])
            #expect(results.map { $0["referenceId"] } == ["refAccount", "local_000000001", "refQuery", "update", "read"])
            let accountId = try #require(results[0]["body"]?["id"]?.stringValue)
            #expect(results[0]["httpHeaders"]?["Location"] == .string("/services/data/v66.0/sobjects/Account/\(accountId)"))
            #expect(results[2]["body"]?["records"]?.arrayValue?.first?["AccountId"] == .string(accountId))
            #expect(results[3]["body"] == .some(.null))
            let contactId = results[1]["body"]?["id"]
            #expect(results[4]["body"]?["Phone"] == contactId)
        }
    }

    @Test func allOrNoneRollsEverythingBack() async throws {
        try await withServer { server in
            let body: JSONValue = [
                "allOrNone": true,
                "compositeRequest": [
                    ["method": "POST", "url": "/services/data/v66.0/sobjects/Account", "referenceId": "good", "body": ["Name": "Kept?"]],
                    [
                        "method": "POST", "url": "/services/data/v66.0/sobjects/Contact", "referenceId": "bad",
                        "body": ["FirstName": "No last name"],
                    ],
                    ["method": "POST", "url": "/services/data/v66.0/sobjects/Account", "referenceId": "after", "body": ["Name": "After"]],
                ],
            ]
            let results = try await server.send("POST", "composite", json: body).json?["compositeResponse"]?.arrayValue ?? []
            #expect(results.map { $0["httpStatusCode"] } == [400, 400, 400])
            #expect(results[1]["body"]?.arrayValue?.first?["errorCode"] == "REQUIRED_FIELD_MISSING")
            #expect(results[0]["body"]?.arrayValue?.first?["errorCode"] == "PROCESSING_HALTED")
            #expect(results[2]["body"]?.arrayValue?.first?["errorCode"] == "PROCESSING_HALTED")
            #expect(try await server.query("SELECT COUNT() FROM Account").json?["totalSize"] == 0)
        }
    }

    @Test func withoutAllOrNoneDependentsAreHalted() async throws {
        try await withServer { server in
            let body: JSONValue = [
                "compositeRequest": [
                    [
                        "method": "POST", "url": "/services/data/v66.0/sobjects/Account", "referenceId": "bad",
                        "body": ["Industry": "no name"],
                    ],
                    [
                        "method": "POST", "url": "/services/data/v66.0/sobjects/Contact", "referenceId": "child",
                        "body": ["LastName": "C", "AccountId": "@{bad.id}"],
                    ],
                    [
                        "method": "POST", "url": "/services/data/v66.0/sobjects/Account", "referenceId": "independent",
                        "body": ["Name": "Fine"],
                    ],
                    [
                        "method": "DELETE",
                        "url": .string("/services/data/v66.0/sobjects/Account/\(SalesforceId(prefix: "001", sequence: 77).value)"),
                        "referenceId": "gone",
                    ],
                ]
            ]
            let results = try await server.send("POST", "composite", json: body).json?["compositeResponse"]?.arrayValue ?? []
            #expect(results.map { $0["httpStatusCode"] } == [400, 400, 201, 404])
            #expect(results[1]["body"]?.arrayValue?.first?["errorCode"] == "PROCESSING_HALTED")
            #expect(try await server.query("SELECT COUNT() FROM Account").json?["totalSize"] == 1)
        }
    }

    @Test func compositeEnvelopeErrors() async throws {
        try await withServer { server in
            let tooMany: JSONValue = [
                "compositeRequest": .array(
                    (0..<26).map { index -> JSONValue in
                        ["method": "GET", "url": "/services/data/v66.0/limits", "referenceId": .string("r\(index)")]
                    })
            ]
            let tooManyReply = try await server.send("POST", "composite", json: tooMany)
            #expect(tooManyReply.status == 400)
            let emptyReply = try await server.send("POST", "composite", json: ["nothing": true])
            #expect(emptyReply.status == 400)
            let duplicate: JSONValue = [
                "compositeRequest": [
                    ["method": "GET", "url": "/services/data/v66.0/limits", "referenceId": "a"],
                    ["method": "GET", "url": "/services/data/v66.0/limits", "referenceId": "a"],
                ]
            ]
            let duplicateReply = try await server.send("POST", "composite", json: duplicate)
            #expect(duplicateReply.status == 400)
        }
    }

    @Test func compositeBatch() async throws {
        try await withServer { server in
            let id = try await server.create("Account", ["Name": "Old"])
            let body: JSONValue = [
                "haltOnError": false,
                "batchRequests": [
                    ["method": "PATCH", "url": .string("v59.0/sobjects/account/\(id)"), "richInput": ["Name": "NewName"]],
                    ["method": "GET", "url": .string("/v66.0/sobjects/Account/\(id)?fields=Name")],
                    ["method": "POST", "url": "/services/data/v60.0/sobjects/Account", "richInput": ["Industry": "missing name"]],
                    ["method": "POST", "url": "v66.0/sobjects/Account", "richInput": ["Name": "Created"]],
                ],
            ]
            let reply = try #require(try await server.send("POST", "composite/batch", json: body).json)
            #expect(reply["hasErrors"] == true)
            let results = reply["results"]?.arrayValue ?? []
            #expect(results.map { $0["statusCode"] } == [204, 200, 400, 201])
            #expect(results[1]["result"]?["Name"] == "NewName" && results[0]["result"] == .some(.null))
            let halting: JSONValue = [
                "haltOnError": true,
                "batchRequests": [
                    ["method": "POST", "url": "v66.0/sobjects/Account", "richInput": ["Industry": "missing name"]],
                    ["method": "POST", "url": "v66.0/sobjects/Account", "richInput": ["Name": "Never"]],
                ],
            ]
            let halted = try await server.send("POST", "composite/batch", json: halting).json?["results"]?.arrayValue ?? []
            #expect(halted.map { $0["statusCode"] } == [400, 412])
            #expect(try await server.query("SELECT COUNT() FROM Account WHERE Name = 'Never'").json?["totalSize"] == 0)
        }
    }
}

@Suite struct CollectionTests {
    /// Collection creates reserve ids and timestamps in blocks: still unique, strictly increasing
    /// in request order, and followed by later writes; failed records leave only gaps.
    @Test func createdRecordsGetIncreasingUniqueStamps() async throws {
        try await withServer { server in
            let records: [JSONValue] = (0..<200).map { index in
                index == 50 ? ["attributes": ["type": "Account"]] : ["attributes": ["type": "Account"], "Name": .string("R\(index)")]
            }
            let created = try await server.send("POST", "composite/sobjects", json: ["records": .array(records)]).json?.arrayValue ?? []
            #expect(created.count == 200 && created.filter { $0["success"] == true }.count == 199)
            let ids = created.compactMap { $0["id"]?.stringValue }
            #expect(Set(ids).count == 199)
            let later = try await server.create("Account", ["Name": "Later"])
            let rows = try await server.allRecords("SELECT Id, Name, CreatedDate, LastModifiedDate FROM Account")
            let stamps = Dictionary(
                uniqueKeysWithValues: rows.compactMap { row in
                    row["Id"]?.stringValue.map { ($0, row["LastModifiedDate"]?.stringValue ?? "") }
                })
            let ordered = ids.compactMap { stamps[$0] }
            #expect(ordered.count == 199 && zip(ordered, ordered.dropFirst()).allSatisfy { $0 < $1 })
            #expect((stamps[later] ?? "") > (ordered.last ?? "~"))
            #expect(rows.allSatisfy { $0["CreatedDate"] == $0["LastModifiedDate"] })
        }
    }

    @Test func createUpdateUpsertRetrieveDelete() async throws {
        try await withServer { server in
            let create: JSONValue = [
                "allOrNone": false,
                "records": [
                    ["attributes": ["type": "Account"], "Name": "A"],
                    ["attributes": ["type": "Contact"], "LastName": "B"],
                    ["attributes": ["type": "Account"], "Name": .string(String(repeating: "x", count: 300))],
                    ["Name": "no type"],
                ],
            ]
            let created = try await server.send("POST", "composite/sobjects", json: create).json?.arrayValue ?? []
            #expect(created.map { $0["success"] } == [true, true, false, false])
            #expect(created[2]["errors"]?.arrayValue?.first?["statusCode"] == "STRING_TOO_LONG")
            #expect(created[2]["id"] == nil)
            #expect(created[3]["errors"]?.arrayValue?.first?["message"] == "sObject type 'null' is not supported.")
            let accountId = try #require(created[0]["id"]?.stringValue)
            let contactId = try #require(created[1]["id"]?.stringValue)

            let update: JSONValue = [
                "records": [
                    ["attributes": ["type": "Account"], "Id": .string(accountId), "Name": "A2"],
                    ["attributes": ["type": "Account"], "Id": .string(SalesforceId(prefix: "001", sequence: 999).value), "Name": "ghost"],
                ]
            ]
            let updated = try await server.send("PATCH", "composite/sobjects", json: update).json?.arrayValue ?? []
            #expect(updated.map { $0["success"] } == [true, false])
            #expect(updated[1]["errors"]?.arrayValue?.first?["statusCode"] == "INVALID_CROSS_REFERENCE_KEY")

            let upsert: JSONValue = [
                "allOrNone": false,
                "records": [
                    ["attributes": ["type": "Invoice__c"], "Invoice_Number__c": "I-1", "Name": "one"],
                    ["attributes": ["type": "Invoice__c"], "Invoice_Number__c": "I-1", "Name": "one again"],
                ],
            ]
            let upserted =
                try await server.send("PATCH", "composite/sobjects/Invoice__c/Invoice_Number__c", json: upsert).json?.arrayValue ?? []
            #expect(upserted.map { $0["created"] } == [true, false])

            let retrieve: JSONValue = [
                "ids": [.string(accountId), .string(SalesforceId(prefix: "001", sequence: 999).value)],
                "fields": ["Id", "Name", "LastModifiedDate"],
            ]
            let retrieved = try await server.send("POST", "composite/sobjects/Account", json: retrieve).json?.arrayValue ?? []
            #expect(retrieved.count == 2 && retrieved[0]["Name"] == "A2" && retrieved[1] == .null)
            let viaGet = try await server.send("GET", "composite/sobjects/Account?ids=\(accountId)&fields=Name").json?.arrayValue ?? []
            #expect(viaGet.first?["Name"] == "A2")

            let deleted =
                try await server.send("DELETE", "composite/sobjects?ids=\(accountId),\(contactId),\(accountId)&allOrNone=false").json?
                .arrayValue ?? []
            #expect(deleted.map { $0["success"] } == [true, true, false])
            #expect(deleted[2]["errors"]?.arrayValue?.first?["statusCode"] == "ENTITY_IS_DELETED")
            let unknown =
                try await server.send("DELETE", "composite/sobjects?ids=\(SalesforceId(prefix: "003", sequence: 5).value),bogus").json?
                .arrayValue ?? []
            #expect(
                unknown.compactMap { $0["errors"]?.arrayValue?.first?["statusCode"]?.stringValue } == [
                    "INVALID_CROSS_REFERENCE_KEY", "MALFORMED_ID",
                ])
            let afterDelete = try await server.send(
                "POST", "composite/sobjects/Account", json: ["ids": [.string(accountId)], "fields": ["Name"]]
            ).json
            #expect(afterDelete == .array([.null]))
        }
    }

    @Test func allOrNoneRollsBack() async throws {
        try await withServer { server in
            let body: JSONValue = [
                "allOrNone": true,
                "records": [
                    ["attributes": ["type": "Account"], "Name": "would be fine"],
                    ["attributes": ["type": "Account"], "Industry": "no name"],
                ],
            ]
            let results = try await server.send("POST", "composite/sobjects", json: body).json?.arrayValue ?? []
            #expect(results[0]["errors"]?.arrayValue?.first?["statusCode"] == "ALL_OR_NONE_OPERATION_ROLLED_BACK")
            #expect(results[1]["errors"]?.arrayValue?.first?["statusCode"] == "REQUIRED_FIELD_MISSING")
            #expect(results.allSatisfy { $0["id"] == nil && $0["success"] == false })
            #expect(try await server.query("SELECT COUNT() FROM Account").json?["totalSize"] == 0)
        }
    }

    @Test func limits() async throws {
        try await withServer { server in
            let tooMany: JSONValue = [
                "records": .array((0..<201).map { _ -> JSONValue in ["attributes": ["type": "Account"], "Name": "x"] })
            ]
            #expect(try await server.send("POST", "composite/sobjects", json: tooMany).status == 400)
            #expect(try await server.query("SELECT COUNT() FROM Account").json?["totalSize"] == 0)
            let full: JSONValue = [
                "records": .array(
                    (0..<200).map { index -> JSONValue in ["attributes": ["type": "Account"], "Name": .string("A\(index)")] })
            ]
            let results = try await server.send("POST", "composite/sobjects", json: full).json?.arrayValue ?? []
            #expect(results.count == 200 && results.allSatisfy { $0["success"] == true })
        }
    }
}
