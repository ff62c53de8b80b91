import FastJSON
import Foundation
import LocalForceHTTP
@_spi(MSyncInternal) import SalesforceWire
import Testing

@testable import LocalForce

/// The Streaming API over real HTTP: CometD's handshake, subscribe, connect and disconnect,
/// Change Data Capture events from every write path, replay and its errors.
@Suite struct StreamingTests {
    static let quick = StreamingOptions(longPollTimeout: .seconds(2))

    static func header(_ event: JSONValue) -> JSONValue? { event["data"]?["payload"]?["ChangeEventHeader"] }

    @Test func handshakeSubscribeAndReceiveChangeEvents() async throws {
        let server = try await TestServer(streaming: Self.quick)
        defer { Task { await server.stop() } }
        let client = BayeuxClient(server.server)
        let handshake = try await client.handshake()
        #expect(handshake["successful"] == true)
        #expect(handshake["ext"]?["replay"] == true)
        #expect(handshake["supportedConnectionTypes"] == ["long-polling"])
        #expect(handshake["version"] == "1.0")
        let subscribed = try await client.subscribe("/data/AccountChangeEvent")
        #expect(subscribed["successful"] == true, "\(subscribed.jsonString)")
        #expect(subscribed["subscription"] == "/data/AccountChangeEvent")
        // The first connect answers at once with the advice.
        let first = try await client.connect(timeout: 0)
        #expect(first.reply["successful"] == true)
        #expect(first.reply["advice"]?["reconnect"] == "retry")
        #expect(first.reply["advice"]?["timeout"] == 2000)

        let id = try await server.create("Account", ["Name": "Acme", "Industry": "Energy"])
        _ = try await server.send("PATCH", "sobjects/Account/\(id)", json: ["Name": "Acme Corp", "Industry": "Energy"])
        _ = try await server.send("DELETE", "sobjects/Account/\(id)")
        let events = try await client.events(3)
        try #require(events.count == 3)
        let (created, updated, deleted) = (events[0], events[1], events[2])
        #expect(created["channel"] == "/data/AccountChangeEvent")
        #expect(Self.header(created)?["changeType"] == "CREATE")
        #expect(Self.header(created)?["entityName"] == "Account")
        #expect(Self.header(created)?["recordIds"] == [.string(id)])
        #expect(Self.header(created)?["changeOrigin"] == "com/salesforce/api/rest/66.0")
        #expect(Self.header(created)?["commitUser"]?.stringValue?.hasPrefix("005") == true)
        #expect(Self.header(created)?["sequenceNumber"] == 1)
        #expect(created["data"]?["payload"]?["Name"] == "Acme")
        #expect(created["data"]?["payload"]?["Industry"] == "Energy")
        #expect(created["data"]?["payload"]?["CreatedDate"]?.stringValue != nil)
        #expect(created["data"]?["payload"]?["Id"] == nil)
        #expect(created["data"]?["schema"]?.stringValue?.count == 22)
        // An update names only the fields whose values changed (Industry was sent unchanged).
        #expect(Self.header(updated)?["changeType"] == "UPDATE")
        #expect(Self.header(updated)?["changedFields"] == ["Name", "LastModifiedDate"])
        #expect(updated["data"]?["payload"]?["Name"] == "Acme Corp")
        #expect(updated["data"]?["payload"]?["Industry"] == nil)
        #expect(Self.header(deleted)?["changeType"] == "DELETE")
        #expect(Self.header(deleted)?["recordIds"] == [.string(id)])
        // Replay ids increase; each transaction has its own key.
        let replayIds = events.compactMap { $0["data"]?["event"]?["replayId"]?.int64Value }
        #expect(replayIds == replayIds.sorted() && Set(replayIds).count == 3)
        #expect(Set(events.compactMap { Self.header($0)?["transactionKey"]?.stringValue }).count == 3)
        // The update's LastModifiedDate is its transaction's time, or the unique tick just after
        // (commitTimestamp is when the request was handled).
        let committed = try #require(Self.header(updated)?["commitTimestamp"]?.int64Value)
        let modified = try #require(updated["data"]?["payload"]?["LastModifiedDate"]?.stringValue.flatMap(SalesforceTime.parse))
        #expect(modified >= committed && modified < committed + 1000, "\(modified) \(committed)")

        let disconnect = try await client.post([["channel": "/meta/disconnect", "clientId": .string(client.clientId ?? "")]])
        #expect(disconnect.replies.first?["successful"] == true)
        let after = try await client.connect()
        #expect(after.reply["error"] == "403::Unknown client")
        #expect(after.reply["advice"]?["reconnect"] == "handshake")
    }

    @Test func everyWritePathPublishes() async throws {
        let server = try await TestServer(streaming: Self.quick)
        defer { Task { await server.stop() } }
        let client = BayeuxClient(server.server)
        try await client.handshake()
        try await client.subscribe("/data/ChangeEvents")
        // Composite, all or none: one transaction, one key, sequence numbers 1, 2.
        let composite = try await server.send(
            "POST", "composite",
            json: [
                "allOrNone": true,
                "compositeRequest": [
                    ["method": "POST", "url": "/services/data/v66.0/sobjects/Account", "referenceId": "a", "body": ["Name": "Parent"]],
                    [
                        "method": "POST", "url": "/services/data/v66.0/sobjects/Contact", "referenceId": "c",
                        "body": ["LastName": "Child", "AccountId": "@{a.id}"],
                    ],
                ],
            ])
        #expect(composite.status == 200)
        var events = try await client.events(2)
        try #require(events.count == 2)
        #expect(events[0]["channel"] == "/data/ChangeEvents")
        #expect(Self.header(events[0])?["entityName"] == "Account")
        #expect(Self.header(events[1])?["entityName"] == "Contact")
        #expect(Self.header(events[0])?["transactionKey"] == Self.header(events[1])?["transactionKey"])
        #expect(Self.header(events[0])?["sequenceNumber"] == 1)
        #expect(Self.header(events[1])?["sequenceNumber"] == 2)
        #expect(Self.header(events[0])?["commitNumber"] == Self.header(events[1])?["commitNumber"])
        let accountId = try #require(Self.header(events[0])?["recordIds"]?.arrayValue?.first?.stringValue)
        let contactId = try #require(Self.header(events[1])?["recordIds"]?.arrayValue?.first?.stringValue)

        // Collections: create, update, delete.
        let created = try await server.send(
            "POST", "composite/sobjects",
            json: ["records": [["attributes": ["type": "Account"], "Name": "One"], ["attributes": ["type": "Account"], "Name": "Two"]]])
        let ids = (created.json?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
        try #require(ids.count == 2)
        _ = try await server.send(
            "PATCH", "composite/sobjects",
            json: ["records": [["attributes": ["type": "Account"], "id": .string(ids[0]), "Phone": "555"]]])
        _ = try await server.send("DELETE", "composite/sobjects?ids=\(ids[1])")
        events = try await client.events(4)
        #expect(events.compactMap { Self.header($0)?["changeType"]?.stringValue } == ["CREATE", "CREATE", "UPDATE", "DELETE"])
        #expect(Self.header(events[2])?["changedFields"] == ["Phone", "LastModifiedDate"])

        // Composite batch and upsert by external id.
        _ = try await server.send(
            "POST", "composite/batch",
            json: [
                "batchRequests": [
                    ["method": "PATCH", "url": .string("v66.0/sobjects/Contact/\(contactId)"), "richInput": ["FirstName": "Ann"]]
                ]
            ])
        _ = try await server.send("PATCH", "sobjects/Invoice__c/Invoice_Number__c/INV-1", json: ["Name": "First invoice"])
        events = try await client.events(2)
        #expect(events.compactMap { Self.header($0)?["changeType"]?.stringValue } == ["UPDATE", "CREATE"])
        // The computed Name changed with FirstName.
        #expect(Self.header(events[0])?["changedFields"] == ["FirstName", "LastModifiedDate", "Name"])
        #expect(events[1]["data"]?["payload"]?["Invoice_Number__c"] == "INV-1")

        // A delete's cascade: master-detail children are deleted, lookups to it cleared.
        let invoice = try #require(Self.header(events[1])?["recordIds"]?.arrayValue?.first?.stringValue)
        let line = try await server.create("Invoice_Line__c", ["Name": "L1", "Invoice__c": .string(invoice)])
        _ = try await client.events(1)
        _ = try await server.send("DELETE", "sobjects/Invoice__c/\(invoice)")
        _ = try await server.send("DELETE", "sobjects/Account/\(accountId)")
        events = try await client.events(4)
        let summary = events.compactMap { event -> String? in
            guard let header = Self.header(event), let type = header["changeType"]?.stringValue,
                let entity = header["entityName"]?.stringValue, let id = header["recordIds"]?.arrayValue?.first?.stringValue
            else { return nil }
            return "\(type) \(entity) \(id == line || id == invoice || id == accountId || id == contactId ? "known" : id)"
        }
        #expect(summary == ["DELETE Invoice__c known", "DELETE Invoice_Line__c known", "DELETE Account known", "UPDATE Contact known"])
        #expect(Self.header(events[3])?["changedFields"] == ["AccountId"])
        #expect(events[3]["data"]?["payload"]?["AccountId"] == .null)

        // Seeding through the Swift API publishes too (with no API origin).
        _ = try await server.server.localForce.insert([["Name": "Seeded"]], of: "Account")
        events = try await client.events(1)
        #expect(Self.header(events.first ?? .null)?["changeOrigin"] == "")
    }
}
