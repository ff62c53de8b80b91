import FastJSON
import Foundation
import Testing

@testable import SmartStore

/// A whole-entry write of a copy read before the entry's last write is refused, whoever wrote
/// it (this store, another connection to the file); an entry without a stamp, or a copy of
/// the current version, is written.
@Suite struct StaleEntryTests {
    static func isStale(_ error: (any Error)?, id: Int64) -> Bool {
        if case .staleEntry(let soup, let entryId, _, _)? = error as? SmartStoreError { return soup == "accounts" && entryId == id }
        return false
    }

    @Test func everyWholeEntryWriteRefusesAStaleCopy() throws {
        let store = try SmartStore()
        try store.registerSoup("accounts", indexSpecs: [IndexSpec("Id", .string)])
        let copy = try store.create(["Id": "001", "Name": "Acme"], in: "accounts")
        let id = try #require(copy["_soupEntryId"]?.int64Value)
        try store.modify(id, in: "accounts") { $0["Name"] = "Acme Corp" }
        var stale = copy
        stale["Industry"] = "Media"
        #expect(Self.isStale(#expect(throws: SmartStoreError.self) { try store.update(stale, id: id, in: "accounts") }, id: id))
        #expect(Self.isStale(#expect(throws: SmartStoreError.self) { try store.upsert(stale, in: "accounts") }, id: id))
        #expect(
            Self.isStale(#expect(throws: SmartStoreError.self) { try store.upsert(stale, in: "accounts", externalIdPath: "Id") }, id: id))
        #expect(
            Self.isStale(
                #expect(throws: SmartStoreError.self) {
                    try store.inTransaction { tx in _ = try tx.update(stale, id: id, in: "accounts") }
                },
                id: id))
        #expect(try store.retrieve([id], from: "accounts").first?["Name"] == "Acme Corp")
        // A copy of the current version is written; so is an entry without a stamp.
        var current = try #require(try store.retrieve([id], from: "accounts").first)
        current["Industry"] = "Media"
        current = try store.upsert(current, in: "accounts")
        var blind = stale
        blind["_soupLastModifiedDate"] = nil
        try store.update(blind, id: id, in: "accounts")
        #expect(try store.retrieve([id], from: "accounts").first?["Name"] == "Acme")
        // Another entry's id and stamp: no copy of this one.
        var foreign = current
        foreign["_soupEntryId"] = 999
        try store.update(foreign, id: id, in: "accounts")
    }

    @Test func aWriteByAnotherConnectionInTheSameMillisecondMakesTheCopyStale() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stale-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("store.sqlite").path
        let (mine, theirs) = (try SmartStore(path: path), try SmartStore(path: path))
        try mine.registerSoup("accounts", indexSpecs: [IndexSpec("Id", .string)])
        for round in 0..<20 {
            let copy = try mine.create(["Id": .string("00\(round)")], in: "accounts")
            let id = try #require(copy["_soupEntryId"]?.int64Value)
            _ = try theirs.setField("Name", to: "Theirs", entryIds: [id], in: "accounts")
            #expect(Self.isStale(#expect(throws: SmartStoreError.self) { try mine.upsert(copy, in: "accounts") }, id: id))
        }
    }
}
