import FastJSON
import Foundation
import LocalForceHTTP
import Testing

@testable import LocalForce

/// Change events go to the log at the end of their transaction: consecutive replay ids, one
/// `commitNumber`, none for writes a savepoint or a failed transaction rolled back.
@Suite struct ChangeCaptureTests {
    /// The replay ids, channels and commit numbers in the log, oldest first.
    static func log(_ localForce: LocalForce) async throws -> [(id: Int64, channel: String, commit: Int64?)] {
        try await localForce.database.read { db in
            try db.rows("SELECT replay_id, channel, body FROM lf_events ORDER BY replay_id", []).map { row in
                let body = try? JSONValue(parsing: Array((row[2].text ?? "").utf8) + Array("\"replayId\":0}}".utf8))
                return (row[0].integer ?? 0, row[1].text ?? "", body?["payload"]?["ChangeEventHeader"]?["commitNumber"]?.int64Value)
            }
        }
    }

    @Test func aSavepointRolledBackDropsItsEventsAndTheRestGetConsecutiveIds() async throws {
        let database = try await TestServer.database()
        let localForce = try await LocalForce(database: database, token: "t")
        let (schema, userId) = (localForce.schema, localForce.userId)
        let clock = WriteClock(now: 1_700_000_000_000)
        let source = try #require(localForce.captureSource(version: "66.0", userId: userId, clock: clock))
        let account = try #require(schema.object(named: "Account"))
        struct Refused: Error {}
        let kept = try await localForce.database.write(capturing: source) { db, capture -> [String] in
            let writer = RecordWriter(schema: schema, db: db, userId: userId, clock: clock, capture: capture)
            var ids = [try writer.create(account, body: ["Name": "First"]).value]
            // Written, then refused: the record and its event go together.
            _ = try? withSavepoint(db, capture: capture) {
                _ = try writer.create(account, body: ["Name": "Rolled back"])
                throw Refused()
            }
            ids.append(try withSavepoint(db, capture: capture) { try writer.create(account, body: ["Name": "Second"]).value })
            return ids
        }
        let log = try await Self.log(localForce)
        #expect(log.map(\.channel) == ["/data/AccountChangeEvent", "/data/AccountChangeEvent"])
        let first = try #require(log.first?.id)
        #expect(log.map(\.id) == [first, first + 1])
        #expect(log.map(\.commit) == [first, first])
        let names = try await localForce.database.read { db in
            try db.rows("SELECT \"Name\" FROM \"Account\" ORDER BY \"Name\"", []).compactMap { $0.first?.text }
        }
        #expect(names == ["First", "Second"])
        #expect(kept.count == 2)
        await database.close()
    }

    @Test func aFailedTransactionTakesNoReplayIds() async throws {
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        _ = try await server.create("Account", ["Name": "Before"])
        // All or none, the second item fails after the first wrote: nothing is published.
        let composite = try await server.send(
            "POST", "composite",
            json: [
                "allOrNone": true,
                "compositeRequest": [
                    ["method": "POST", "url": "/services/data/v66.0/sobjects/Account", "referenceId": "a", "body": ["Name": "Undone"]],
                    ["method": "POST", "url": "/services/data/v66.0/sobjects/Account", "referenceId": "b", "body": ["Nope__c": 1]],
                ],
            ])
        #expect(composite.status == 200)
        let records = (0..<3).map { ["attributes": ["type": "Account"], "Name": .string("Batch \($0)")] as JSONValue }
        let created = try await server.send("POST", "composite/sobjects", json: ["allOrNone": false, "records": .array(records)])
        #expect(created.json?.arrayValue?.allSatisfy { $0["success"] == true } == true)
        let log = try await Self.log(server.server.localForce)
        #expect(log.count == 4)
        let ids = log.map(\.id)
        #expect(ids == Array(ids[0]...(ids[0] + 3)))
        // The collection's three creates: one transaction, its first id as commit number.
        #expect(log.dropFirst().map(\.commit) == [ids[1], ids[1], ids[1]])
    }
}
