import FastJSON
import Foundation
import GRDB
import GRDBSQLite
import LocalForceHTTP
import TestSupport
import Testing

@testable import LocalForce

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// Memory, disk and sockets stay bounded whatever clients do.
@Suite struct ResourceBoundsTests {
    @Test func cursorsBeyondTheBudgetAreEvictedAsInvalidLocators() async throws {
        // Each cursor of 450 ids takes about 10 KB; a 25 KB budget keeps two.
        let localForce = try await LocalForce(
            database: try await TestServer.database(), token: TestServer.token, cursorMemoryBudget: 25_000)
        let server = try await LocalForceServer.start(localForce)
        let client = TestServer(server: server)
        let records: [JSONValue] = (0..<450).map { ["attributes": ["type": "Account"], "Name": .string("A\($0)")] }
        for chunk in stride(from: 0, to: records.count, by: 200) {
            let reply = try await client.send(
                "POST", "composite/sobjects",
                json: ["allOrNone": true, "records": .array(Array(records[chunk..<min(chunk + 200, records.count)]))])
            #expect(reply.status == 200)
        }
        var next: [String] = []
        for _ in 0..<5 {
            let reply = try await client.query("SELECT Id FROM Account", headers: ["Sforce-Query-Options": "batchSize=200"])
            next.append(try #require(reply.json?["nextRecordsUrl"]?.stringValue))
        }
        // The oldest cursors were dropped, the newest are served.
        let oldest = try await client.send("GET", next[0])
        #expect(oldest.status == 400)
        #expect(oldest.errorCode == "INVALID_QUERY_LOCATOR")
        let newest = try await client.send("GET", next[4])
        #expect(newest.status == 200)
        #expect(newest.json?["records"]?.arrayValue?.count == 200)
        await server.stop()
    }

    @Test func idListsRoundTrip() {
        let ids = ["001000000000001AAA", "", "x", "001000000000002AAA"]
        let list = IdList(ids)
        #expect(list.count == 4)
        #expect((0..<4).map { list[$0] } == ids)
        #expect(Array(list.ids(in: 1..<10)) == Array(ids[1...]))
        #expect(list.commaSeparated == ids.joined(separator: ","))
        #expect(IdList(["001000000000001AAA"]).byteSize == 22)
    }

    @Test func storageErrorsShowNoSQL() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            let connection = GRDBConnection(db: db)
            #expect {
                _ = try connection.rows("SELECT secret_column FROM nowhere", [])
            } throws: { error in
                let text = "\(error)"
                return error is StatementError && text.contains("no such table") && !text.contains("SELECT")
            }
        }
    }

    @Test func memoryBudgetQueuesWhatDoesNotFit() async throws {
        let budget = MemoryBudget(capacity: 100)
        await budget.reserve(60)
        let started = Task {
            await budget.reserve(60)
            return await budget.inUse
        }
        while await budget.mostWaiting == 0 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(await budget.inUse == 60) // the second waits
        await budget.release(60)
        #expect(await started.value == 60)
        await budget.release(60)
        await budget.reserve(1_000) // larger than the capacity: runs alone
        #expect(await budget.inUse == 100)
        await budget.release(1_000)
        #expect(await budget.inUse == 0)
    }

    @Test func concurrentLargeBodiesWaitForTheBudget() async throws {
        // Bodies of 2 MB count 32 MB each; a 40 MB budget lets one through at a time.
        let localForce = try await LocalForce(
            database: try await TestServer.database(), token: TestServer.token, bodyMemoryBudget: 40 << 20)
        let server = try await LocalForceServer.start(localForce)
        let client = TestServer(server: server)
        let description = String(repeating: "d", count: 2 << 20)
        // The budget is taken until a request waits for it (requests that happen not to overlap
        // would show nothing).
        await localForce.bodyMemory.reserve(40 << 20)
        let replies = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    try await client.send("POST", "sobjects/Account", json: ["Name": "Big", "Description": .string(description)]).status
                }
            }
            let deadline = ContinuousClock.now + .seconds(60)
            while await localForce.bodyMemory.mostWaiting < 1, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            await localForce.bodyMemory.release(40 << 20)
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(replies.count == 4)
        #expect(replies.allSatisfy { $0 == 400 }) // Description is longer than 32,000 characters
        #expect(await localForce.bodyMemory.mostWaiting >= 1)
        #expect(await localForce.bodyMemory.inUse == 0)
        await server.stop()
    }

    @Test func smallBodylessAndAnonymousRequestsNeverWait() async throws {
        let localForce = try await LocalForce(
            database: try await TestServer.database(), token: TestServer.token, bodyMemoryBudget: 40 << 20)
        let server = try await LocalForceServer.start(localForce)
        let client = TestServer(server: server)
        // The whole budget is taken: only a request that reserves nothing gets through.
        await localForce.bodyMemory.reserve(40 << 20)
        #expect(try await client.send("GET", "limits").status == 200)
        #expect(try await client.send("DELETE", "sobjects/Account/001000000000001AAA").status == 404)
        #expect(try await client.send("POST", "sobjects/Account", json: ["Name": "Small"]).status == 201)
        #expect(try await client.send("POST", "sobjects/Account", rawBody: Data(count: 2 << 20), authorized: false).status == 401)
        await localForce.bodyMemory.release(40 << 20)
        await server.stop()
    }

    @Test func aTruncatedBodyIsABadRequestNotTooLarge() async throws {
        try await withServer { server in
            guard let port = server.server.baseURL.port else { throw TestFailure("no port") }
            let request =
                "POST /services/data/v66.0/sobjects/Account HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(TestServer.token)\r\n"
                + "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"Name\": \"cut\"}"
            // What arrived is valid JSON, but not the whole body: nothing is created.
            let answer = try await RawSocket.exchange(port: port, request, halfClose: true)
            #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer)")
            #expect(answer.contains("incomplete"), "\(answer)")
            #expect(try await server.query("SELECT Id FROM Account").json?["totalSize"] == 0)
        }
    }

    @Test func aServerThatCannotListenSaysWhy() async throws {
        try await withServer { server in
            guard let port = server.server.baseURL.port else { throw TestFailure("no port") }
            let second = try await LocalForce(database: try SQLiteDatabase(path: ":memory:"), token: "t")
            await #expect {
                _ = try await LocalForceServer.start(second, host: "127.0.0.1", port: port)
            } throws: { error in
                "\(error)".contains("could not listen on 127.0.0.1:\(port): port \(port) is in use")
            }
            await #expect(throws: (any Error).self) {
                _ = try await LocalForceServer.start(second, host: "999.1.1.1", port: 0)
            }
        }
    }
}
