import FastJSON
import Foundation
import Testing

@testable import SmartStore

/// Live queries: a result now and after each change to what the query reads, nothing for
/// writes elsewhere, errors as the query's.
@Suite struct ObserveTests {
    /// The emissions of `stream` while `writing` runs, waiting `settle` before and after it.
    static func collect(
        _ stream: AsyncThrowingStream<[JSONValue], any Error>, settle: Duration = .milliseconds(150),
        while writing: @Sendable @escaping () async throws -> Void
    ) async throws -> [[JSONValue]] {
        let seen = Task {
            var all: [[JSONValue]] = []
            for try await rows in stream { all.append(rows) }
            return all
        }
        try await Task.sleep(for: settle)
        try await writing()
        try await Task.sleep(for: settle)
        seen.cancel()
        return try await seen.value
    }

    /// Each write is awaited before the next, so no result can be coalesced away; a write to
    /// another soup or one that leaves the result unchanged adds nothing (the next emission is
    /// the next change).
    @Test func emitsForChangesToTheSoupItReads() async throws {
        let directory = TemporaryDirectory()
        for store in [try SmartStore(path: directory.path("live.sqlite")), try SmartStore()] {
            try store.registerSoup("accounts", indexSpecs: [IndexSpec("Name", .string)])
            try store.registerSoup("others", indexSpecs: [IndexSpec("Name", .string)])
            var rows = store.observe(smartSql: "select {accounts:Name} from {accounts} order by {accounts:Name}", pageSize: 10)
                .makeAsyncIterator()
            #expect(try await rows.next() == [])
            try await store.create(["Name": "Acme"], in: "accounts")
            #expect(try await rows.next() == [["Acme"]])
            try await store.create(["Name": "Elsewhere"], in: "others")
            let second = try await store.create(["Name": "Globex"], in: "accounts")
            #expect(try await rows.next() == [["Acme"], ["Globex"]])
            _ = try await store.update(["Name": "Globex"], id: second["_soupEntryId"]?.int64Value ?? -1, in: "accounts")
            try await store.create(["Name": "Initech"], in: "accounts")
            #expect(try await rows.next() == [["Acme"], ["Globex"], ["Initech"]])
        }
    }

    @Test func aBurstOfWritesNeverQueuesStaleResults() async throws {
        let store = try SmartStore()
        try store.registerSoup("accounts", indexSpecs: [IndexSpec("Name", .string)])
        let stream = store.observe(.all(soup: "accounts", pageSize: 1000))
        let emissions = try await Self.collect(stream) {
            for index in 0..<200 { try await store.create(["Name": .string("A\(index)")], in: "accounts") }
        }
        // Never more than one emission per write, the last one complete.
        #expect(emissions.count <= 201 && emissions.last?.count == 200)
        #expect(zip(emissions, emissions.dropFirst()).allSatisfy { $0.count < $1.count })
    }

    @Test func errorsAreTheQuerys() async throws {
        let store = try SmartStore()
        await #expect(throws: SmartStoreError.self) {
            for try await _ in store.observe(smartSql: "select {nowhere:Name} from {nowhere}", pageSize: 10) {}
        }
        await #expect(throws: SmartStoreError.self) {
            for try await _ in store.observe(.all(soup: "accounts", pageSize: 10), pageIndex: Int.max) {}
        }
    }
}
