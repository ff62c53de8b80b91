import FastJSON
import Foundation
import Testing

@testable import LocalForce

/// Events are capped as Salesforce caps them (1 MB a message): a larger platform event is
/// refused, a larger change event is sent as a gap event (the header alone, for subscribers to
/// read the records), a larger PushTopic event carries the record's Id alone.
@Suite struct EventSizeTests {
    /// Nine text areas of 131,072 characters: a record with all of them full is over 1 MB.
    static func schema() throws -> Schema {
        let fields = (1...9).map { #"{"name": "Text\#($0)__c", "type": "textarea", "length": 131072}"# }.joined(separator: ", ")
        let text =
            #"{"objects": [{"name": "Big__c", "keyPrefix": "a0B", "fields": [\#(fields)]}, "#
            + #"{"name": "Big_Event__e", "keyPrefix": "e0B", "fields": [\#(fields)]}]}"#
        return try SchemaFile.load(Data(text.utf8))
    }

    /// Short long polls; clients kept however long a loaded machine takes to write a megabyte
    /// in a debug build (Salesforce forgets a client after 40 s without a connect).
    static let streaming = StreamingOptions(longPollTimeout: .seconds(1), clientTimeout: .seconds(3600))

    static func full(_ size: Int) -> JSONValue {
        .object(Dictionary(uniqueKeysWithValues: (1...9).map { ("Text\($0)__c", JSONValue.string(String(repeating: "x", count: size))) }))
    }

    @Test func largeEventsAreCappedAtOneMegabyte() async throws {
        let server = try await TestServer(schema: try Self.schema(), streaming: Self.streaming)
        defer { Task { await server.stop() } }
        let topic = try await server.send(
            "POST", "sobjects/PushTopic",
            json: [
                "Name": "Bigs", "Query": .string("SELECT Id, \((1...9).map { "Text\($0)__c" }.joined(separator: ", ")) FROM Big__c"),
                "ApiVersion": 59.0,
            ])
        #expect(topic.status == 201)
        let client = BayeuxClient(server.server)
        try await client.handshake()
        for channel in ["/event/Big_Event__e", "/data/Big__ChangeEvent", "/topic/Bigs"] {
            #expect(try await client.subscribe(channel)["successful"] == true, "\(channel)")
        }
        let tooLarge = try await server.send("POST", "sobjects/Big_Event__e", json: Self.full(131_072))
        #expect(tooLarge.status == 400 && tooLarge.errorCode == "LIMIT_EXCEEDED", "\(tooLarge.status)")
        #expect(try await server.send("POST", "sobjects/Big_Event__e", json: Self.full(1_000)).status == 201)
        let big = try #require(try await server.send("POST", "sobjects/Big__c", json: Self.full(131_072)).json?["id"]?.stringValue)
        let small = try #require(try await server.send("POST", "sobjects/Big__c", json: Self.full(10)).json?["id"]?.stringValue)
        let events = try await client.events(5)
        let published = events.filter { $0["channel"] == "/event/Big_Event__e" }
        #expect(published.count == 1 && published.first?["data"]?["payload"]?["Text9__c"]?.stringValue?.count == 1_000)
        let changes = events.filter { $0["channel"] == "/data/Big__ChangeEvent" }.compactMap { $0["data"]?["payload"] }
        #expect(changes.map { $0["ChangeEventHeader"]?["changeType"] } == ["GAP_CREATE", "CREATE"])
        #expect(changes.map { $0["ChangeEventHeader"]?["recordIds"]?.arrayValue?.first?.stringValue } == [big, small])
        #expect(changes.first?["Text1__c"] == nil && changes.last?["Text9__c"]?.stringValue?.count == 10)
        let topics = events.filter { $0["channel"] == "/topic/Bigs" }.compactMap { $0["data"]?["sobject"] }
        #expect(topics.map { $0["Id"]?.stringValue } == [big, small])
        #expect(topics.first?.objectValue?.count == 1 && topics.last?["Text1__c"]?.stringValue?.count == 10)
        for event in events { #expect(event.jsonBytes.count <= EventLog.maximumEventBytes + 1_000) }
    }

    /// One transaction writes at most ``PushTopics/maximumBytesPerTransaction`` of topic events
    /// with their fields: five topics selecting 900 KB of one record give four events with the
    /// fields and one with the Id alone.
    @Test func topicEventsOfOneWriteAreBoundedInBytes() async throws {
        let server = try await TestServer(schema: try Self.schema(), streaming: Self.streaming)
        defer { Task { await server.stop() } }
        let client = BayeuxClient(server.server)
        try await client.handshake()
        let fields = (1...9).map { "Text\($0)__c" }.joined(separator: ", ")
        for number in 1...5 {
            let topic = try await server.send(
                "POST", "sobjects/PushTopic",
                json: ["Name": .string("Bigs\(number)"), "Query": .string("SELECT Id, \(fields) FROM Big__c"), "ApiVersion": 59.0])
            #expect(topic.status == 201)
            #expect(try await client.subscribe("/topic/Bigs\(number)")["successful"] == true)
        }
        let id = try #require(try await server.send("POST", "sobjects/Big__c", json: Self.full(100_000)).json?["id"]?.stringValue)
        let sobjects = try await client.events(5).compactMap { $0["data"]?["sobject"] }
        #expect(sobjects.allSatisfy { $0["Id"]?.stringValue == id })
        #expect(sobjects.map { $0.objectValue?.count ?? 0 }.sorted() == [1, 10, 10, 10, 10])
    }
}
