import FastJSON
import Foundation
import Testing

@testable import LocalForce

/// `/composite/tree/{T}`: nested records created all or none, with their change events.
@Suite struct TreeTests {
    static func account(_ reference: String, _ name: String, contacts: [(String, JSONValue)]) -> JSONValue {
        [
            "attributes": ["type": "Account", "referenceId": .string(reference)], "Name": .string(name),
            "Contacts": [
                "records": .array(
                    contacts.map { reference, lastName in
                        ["attributes": ["type": "Contact", "referenceId": .string(reference)], "LastName": lastName]
                    })
            ],
        ]
    }

    @Test func aTreeIsCreatedAllOrNone() async throws {
        let server = try await TestServer(streaming: StreamingOptions(longPollTimeout: .seconds(1)))
        defer { Task { await server.stop() } }
        let client = BayeuxClient(server.server)
        try await client.handshake()
        try await client.subscribe("/data/ChangeEvents")
        let created = try await server.send(
            "POST", "composite/tree/Account",
            json: [
                "records": [
                    Self.account("acme", "Acme", contacts: [("ann", "Ann"), ("bob", "Bob")]), Self.account("zeta", "Zeta", contacts: []),
                ]
            ])
        #expect(created.status == 201)
        #expect(created.json?["hasErrors"] == false)
        let results = created.json?["results"]?.arrayValue ?? []
        #expect(results.compactMap { $0["referenceId"]?.stringValue } == ["acme", "ann", "bob", "zeta"])
        let acme = try #require(results.first?["id"]?.stringValue)
        let contacts = try await server.query("SELECT LastName FROM Contact WHERE AccountId = '\(acme)' ORDER BY LastName")
        #expect(contacts.json?["records"]?.arrayValue?.compactMap { $0["LastName"]?.stringValue } == ["Ann", "Bob"])
        // One transaction: one key, four events in creation order.
        let events = try await client.events(4)
        let headers = events.compactMap { $0["data"]?["payload"]?["ChangeEventHeader"] }
        #expect(headers.compactMap { $0["entityName"]?.stringValue } == ["Account", "Contact", "Contact", "Account"])
        #expect(Set(headers.compactMap { $0["transactionKey"]?.stringValue }).count == 1)
        #expect(events[1]["data"]?["payload"]?["AccountId"] == .string(acme))

        // A failing record rolls the whole tree back and is named by its reference id.
        let failed = try await server.send(
            "POST", "composite/tree/Account",
            json: ["records": [Self.account("good", "Good", contacts: [("bad", .null)])]])
        #expect(failed.status == 400)
        #expect(failed.json?["hasErrors"] == true)
        #expect(failed.json?["results"]?.arrayValue?.first?["referenceId"] == "bad")
        #expect(failed.json?["results"]?.arrayValue?.first?["errors"]?.arrayValue?.first?["statusCode"] == "REQUIRED_FIELD_MISSING")
        #expect(try await server.query("SELECT Id FROM Account WHERE Name = 'Good'").json?["totalSize"] == 0)
        #expect(try await client.connect().events.isEmpty)

        // Bad requests: a wrong type, a duplicate reference id, too many levels or records.
        let wrongType = try await server.send(
            "POST", "composite/tree/Contact", json: ["records": [Self.account("x", "X", contacts: [])]])
        #expect(wrongType.status == 400)
        let duplicate = try await server.send(
            "POST", "composite/tree/Account", json: ["records": [Self.account("same", "A", contacts: [("same", "B")])]])
        #expect(duplicate.errorCode == "INVALID_INPUT")
        var deep: JSONValue = ["attributes": ["type": "Account", "referenceId": "d0"], "Name": "D0"]
        for level in 1...5 {
            deep = [
                "attributes": ["type": "Account", "referenceId": .string("d\(level)")], "Name": .string("D\(level)"),
                "ChildAccounts": ["records": [deep]],
            ]
        }
        #expect(try await server.send("POST", "composite/tree/Account", json: ["records": [deep]]).errorCode == "INVALID_INPUT")
        let many = (0...200).map { Self.account("r\($0)", "R\($0)", contacts: []) }
        #expect(try await server.send("POST", "composite/tree/Account", json: ["records": .array(many)]).errorCode == "LIMIT_EXCEEDED")
    }
}
