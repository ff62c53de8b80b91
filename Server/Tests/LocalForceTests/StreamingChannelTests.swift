import FastJSON
import Foundation
import LocalForceHTTP
import Testing

@testable import LocalForce

/// PushTopics and platform events, many subscribers, subscribers that never come back, and
/// two LocalForce processes on one database.
@Suite struct StreamingChannelTests {
    @Test func pushTopicsFollowTheirQueryAndNotifyOptions() async throws {
        let server = try await TestServer(streaming: StreamingOptions(longPollTimeout: .seconds(1)))
        defer { Task { await server.stop() } }
        let topic = try await server.send(
            "POST", "sobjects/PushTopic",
            json: ["Name": "EnergyAccounts", "Query": "SELECT Id, Name, Phone FROM Account WHERE Industry = 'Energy'", "ApiVersion": 59.0])
        #expect(topic.status == 201, "\(String(decoding: topic.body, as: UTF8.self))")
        // Topics are checked on save.
        for (query, field) in [("SELECT Name FROM Account", "Query"), ("SELECT Id FROM Nothing", "Query"), ("SELEKT", "Query")] {
            let refused = try await server.send(
                "POST", "sobjects/PushTopic", json: ["Name": "Bad", "Query": .string(query), "ApiVersion": 59.0])
            #expect(refused.status == 400, "\(query)")
            #expect(refused.json?.arrayValue?.first?["fields"] == [.string(field)])
        }
        // Field names are case-insensitive in SOQL: ID and id select the Id.
        for (name, query) in [("Upper", "SELECT ID FROM Account"), ("Lower", "SELECT id, Name FROM Account")] {
            let accepted = try await server.send(
                "POST", "sobjects/PushTopic", json: ["Name": .string(name), "Query": .string(query), "ApiVersion": 59.0])
            #expect(accepted.status == 201, "\(query): \(String(decoding: accepted.body, as: UTF8.self))")
        }
        let client = BayeuxClient(server.server)
        try await client.handshake()
        #expect(try await client.subscribe("/topic/EnergyAccounts")["successful"] == true)

        let energy = try await server.create("Account", ["Name": "Power Co", "Industry": "Energy"])
        _ = try await server.create("Account", ["Name": "Bank Co", "Industry": "Banking"])
        // Referenced (the default): a change to a field the query does not read notifies nothing.
        _ = try await server.send("PATCH", "sobjects/Account/\(energy)", json: ["Website": "https://power.example"])
        _ = try await server.send("PATCH", "sobjects/Account/\(energy)", json: ["Phone": "555"])
        _ = try await server.send("DELETE", "sobjects/Account/\(energy)")
        let events = try await client.events(3)
        #expect(events.compactMap { $0["data"]?["event"]?["type"]?.stringValue } == ["created", "updated", "deleted"])
        #expect(events.first?["channel"] == "/topic/EnergyAccounts")
        #expect(events.first?["data"]?["sobject"] == ["Id": .string(energy), "Name": "Power Co", "Phone": .null])
        #expect(events[1]["data"]?["sobject"]?["Phone"] == "555")
        #expect(events[2]["data"]?["sobject"] == ["Id": .string(energy)])
        #expect(events.first?["data"]?["event"]?["createdDate"]?.stringValue?.hasSuffix("Z") == true)
        #expect(try await client.connect().events.isEmpty)

        // NotifyForFields All, and operations switched off.
        _ = try await server.send(
            "POST", "sobjects/PushTopic",
            json: [
                "Name": "AllChanges", "Query": "SELECT Id FROM Account", "ApiVersion": 59.0, "NotifyForFields": "All",
                "NotifyForOperationCreate": false,
            ])
        try await client.subscribe("/topic/AllChanges")
        let other = try await server.create("Account", ["Name": "Quiet"])
        _ = try await server.send("PATCH", "sobjects/Account/\(other)", json: ["Website": "https://quiet.example"])
        let all = try await client.events(1)
        #expect(all.map { $0["data"]?["event"]?["type"] } == ["updated"])
        #expect(all.first?["channel"] == "/topic/AllChanges")
        // An inactive topic publishes nothing.
        let allId = try #require(
            try await server.query("SELECT Id FROM PushTopic WHERE Name = 'AllChanges'").json?["records"]?.arrayValue?.first?["Id"]?
                .stringValue)
        _ = try await server.send("PATCH", "sobjects/PushTopic/\(allId)", json: ["IsActive": false])
        _ = try await server.send("PATCH", "sobjects/Account/\(other)", json: ["Website": "https://still-quiet.example"])
        #expect(try await client.connect().events.isEmpty)
    }

    /// An org holds 100 PushTopics at most, as a Salesforce org does: every write evaluates them.
    @Test func anOrgHoldsAHundredPushTopicsAtMost() async throws {
        let server = try await TestServer(streaming: StreamingOptions(longPollTimeout: .seconds(1)))
        defer { Task { await server.stop() } }
        var ids: [String] = []
        for index in 0..<PushTopics.maximumTopics {
            let made = try await server.send(
                "POST", "sobjects/PushTopic", json: ["Name": .string("T\(index)"), "Query": "SELECT Id FROM Account", "ApiVersion": 59.0])
            #expect(made.status == 201)
            ids += made.json?["id"]?.stringValue.map { [$0] } ?? []
        }
        let over = try await server.send(
            "POST", "sobjects/PushTopic", json: ["Name": "Over", "Query": "SELECT Id FROM Account", "ApiVersion": 59.0])
        #expect(over.status == 400 && over.errorCode == "LIMIT_EXCEEDED")
        _ = try await server.send("DELETE", "sobjects/PushTopic/\(ids[0])")
        let room = try await server.send(
            "POST", "sobjects/PushTopic", json: ["Name": "Over", "Query": "SELECT Id FROM Account", "ApiVersion": 59.0])
        #expect(room.status == 201)
    }

    @Test func platformEventsArePublishedNotStored() async throws {
        let schema = try SchemaFile.load(
            Data(
                #"{"objects": [{"name": "Low_Ink__e", "keyPrefix": "e01", "fields": [{"name": "Printer_Model__c", "type": "string", "required": true}, {"name": "Level__c", "type": "double"}]}]}"#
                    .utf8))
        let server = try await TestServer(schema: schema, streaming: StreamingOptions(longPollTimeout: .seconds(1)))
        defer { Task { await server.stop() } }
        let client = BayeuxClient(server.server)
        try await client.handshake()
        #expect(try await client.subscribe("/event/Low_Ink__e")["successful"] == true)
        let published = try await server.send("POST", "sobjects/Low_Ink__e", json: ["Printer_Model__c": "XZ-10", "Level__c": 0.05])
        #expect(published.status == 201)
        #expect(published.json?["id"]?.stringValue?.hasPrefix("e01") == true)
        #expect(try await server.send("POST", "sobjects/Low_Ink__e", json: ["Level__c": 0.5]).errorCode == "REQUIRED_FIELD_MISSING")
        let events = try await client.events(1)
        let payload = events.first?["data"]?["payload"]
        #expect(payload?["Printer_Model__c"] == "XZ-10")
        #expect(payload?["Level__c"] == 0.05)
        #expect(payload?["CreatedById"]?.stringValue?.hasPrefix("005") == true)
        #expect(payload?["CreatedDate"]?.stringValue != nil)
        #expect(events.first?["data"]?["event"]?["EventUuid"]?.stringValue?.count == 36)
        #expect(events.first?["channel"] == "/event/Low_Ink__e")
        // Through a collection too.
        _ = try await server.send(
            "POST", "composite/sobjects",
            json: ["records": [["attributes": ["type": "Low_Ink__e"], "Printer_Model__c": "AB-1"]]])
        #expect(try await client.events(1).first?["data"]?["payload"]?["Printer_Model__c"] == "AB-1")
        // Described as Salesforce does (published only, not queryable), and refused by SOQL.
        let describe = try await server.send("GET", "sobjects/Low_Ink__e/describe").json
        for flag in ["updateable", "deletable", "undeletable", "queryable"] { #expect(describe?[flag] == false, "\(flag)") }
        #expect(describe?["createable"] == true && describe?["custom"] == true)
        #expect(describe?["label"] == "Low Ink" && describe?["labelPlural"] == "Low Inks", "\(describe?["labelPlural"] ?? nil)")
        let query = try await server.send("GET", "query?q=SELECT+Id+FROM+Low_Ink__e")
        #expect(query.status == 400 && query.errorCode == "INVALID_TYPE", "\(String(decoding: query.body, as: UTF8.self))")
    }

    @Test func fiftySubscribersAndOneThatNeverReturns() async throws {
        // The absent subscriber must outlive the test however slow the machine (Salesforce
        // forgets a client after 40 s without a connect).
        let server = try await TestServer(streaming: StreamingOptions(longPollTimeout: .seconds(30), clientTimeout: .seconds(3600)))
        defer { Task { await server.stop() } }
        // A subscriber that never connects holds a position, not events: writers never wait for it.
        let absent = BayeuxClient(server.server)
        try await absent.handshake()
        try await absent.subscribe("/data/ChangeEvents")
        let clients = (0..<50).map { _ in BayeuxClient(server.server) }
        for client in clients {
            try await client.handshake()
            try await client.subscribe("/data/AccountChangeEvent")
            _ = try await client.connect(timeout: 0)
        }
        let waiting = clients.map { client in Task { try await client.events(1) } }
        try await Task.sleep(for: .milliseconds(300))
        let started = ContinuousClock.now
        let id = try await server.create("Account", ["Name": "Broadcast"])
        var received = 0
        for task in waiting {
            let events = try await task.value
            if events.first?["data"]?["payload"]?["ChangeEventHeader"]?["recordIds"] == [.string(id)] { received += 1 }
        }
        #expect(received == 50)
        #expect(started.duration(to: .now) < .seconds(30), "woken by the commit, not by the 30 s long poll")
        // A thousand writes later, the absent subscriber's backlog is the log itself.
        for start in stride(from: 0, to: 1000, by: 200) {
            _ = try await server.send(
                "POST", "composite/sobjects",
                json: ["records": .array((start..<start + 200).map { ["attributes": ["type": "Account"], "Name": .string("N\($0)")] })])
        }
        #expect(server.server.localForce.streaming.clients.count == 51)
        let backlog = try await absent.events(1001)
        #expect(backlog.count == 1001)
    }

    @Test func anEventWrittenThroughOneProcessReachesASubscriberOfAnother() async throws {
        let (first, second, cleanup) = try await SharedDatabaseTests.sharedDatabases()
        defer { cleanup() }
        let options = StreamingOptions(longPollTimeout: .seconds(60), pollInterval: .milliseconds(100))
        let writer = try await LocalForceServer.start(try await LocalForce(database: first, token: TestServer.token, streaming: options))
        let reader = try await LocalForceServer.start(try await LocalForce(database: second, token: TestServer.token, streaming: options))
        let client = BayeuxClient(reader)
        try await client.handshake()
        try await client.subscribe("/data/AccountChangeEvent")
        _ = try await client.connect(timeout: 0)
        let waiting = Task { try await client.connect() }
        try await Task.sleep(for: .milliseconds(300))
        let written = ContinuousClock.now
        let created = try await SharedDatabaseTests.send(
            writer, "POST", "/services/data/v66.0/sobjects/Account", json: ["Name": "Elsewhere"])
        let (events, _) = try await waiting.value
        let latency = written.duration(to: .now)
        #expect(events.first?["data"]?["payload"]?["ChangeEventHeader"]?["recordIds"] == [created["id"] ?? .null])
        #expect(latency < .seconds(30), "found by the other process's poller, not the 60 s long poll: \(latency)")
        await writer.stop()
        await reader.stop()
    }
}
