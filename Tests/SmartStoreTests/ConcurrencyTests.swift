import Foundation
import Testing

@testable import SmartStore

/// The store is Sendable: readers run during a write and see whole transactions only.
@Suite struct ConcurrencyTests {
    @Test func readersDuringAWriteSeeCommittedPagesOnly() async throws {
        let directory = TemporaryDirectory()
        let store = try SmartStore(path: directory.path("store.sqlite"))
        try store.registerSoup("items", indexSpecs: [IndexSpec("Id", .string), IndexSpec("batch", .integer)])
        let batches = 40
        let perBatch = 250
        try await withThrowingTaskGroup(of: [Int].self) { group in
            group.addTask {
                for batch in 0..<batches {
                    let records: [JSONValue] = (0..<perBatch).map { ["Id": .string("\(batch)-\($0)"), "batch": .int(Int64(batch))] }
                    try store.ingestPage(JSONValue.object(["records": .array(records)]).jsonBytes, into: "items", timestampPath: nil)
                }
                return []
            }
            for _ in 0..<3 {
                group.addTask {
                    var seen: [Int] = []
                    for _ in 0..<60 {
                        let count = try await store.count(.all(soup: "items", pageSize: 1))
                        seen.append(count)
                        await Task.yield()
                    }
                    return seen
                }
            }
            for try await seen in group {
                // Every count a reader sees is a whole number of committed pages, and never goes down.
                #expect(seen.allSatisfy { $0 % perBatch == 0 })
                #expect(seen == seen.sorted())
            }
        }
        await #expect(try store.count(.all(soup: "items", pageSize: 1)) == batches * perBatch)
    }

    @Test func concurrentWritersFromManyTasks() async throws {
        let directory = TemporaryDirectory()
        let store = try SmartStore(path: directory.path("store.sqlite"))
        try store.registerSoup("items", indexSpecs: [IndexSpec("key", .string)])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<50 {
                        try store.upsert(["key": .string("\(task)-\(index)")], in: "items", externalIdPath: "key")
                        _ = try store.query(.exact(soup: "items", path: "key", key: .string("\(task)-\(index)"), pageSize: 1))
                    }
                }
            }
            try await group.waitForAll()
        }
        await #expect(try store.count(.all(soup: "items", pageSize: 1)) == 400)
        let ids = try await store.query(.all(soup: "items", selectPaths: ["_soupEntryId"], pageSize: 500)).compactMap {
            $0.arrayValue?.first?.int64Value
        }
        #expect(Set(ids).count == 400)
    }
}
