import FastJSON
import Foundation
import SalesforceREST
import SmartStore
import TestLocking
import Testing

@testable import LocalForce
@testable import MobileSync

/// The SDK's editing pattern (read an entry, change it, upsert the whole entry) with a copy
/// read before the engine wrote the entry: the store refuses it with
/// ``SmartStoreError/staleEntry(soup:id:read:current:)`` instead of rolling back the engine's
/// work (issue 47's second finding).
@Suite struct StaleCopyTests {
    static let fields = SyncOptions(fieldlist: ["Name", "Industry"])

    static func serverNames(_ harness: SyncHarness) async throws -> [String] {
        try await harness.client.allRecords("SELECT Name FROM Account ORDER BY Name").compactMap { $0["Name"]?.stringValue }
    }

    /// An app's edit of a copy: a field changed and the SDK's flags set.
    static func edited(_ copy: JSONValue, name: String) -> JSONValue {
        var edit = copy
        edit["Name"] = .string(name)
        edit["__local__"] = true
        if edit["__locally_created__"] != true { edit["__locally_updated__"] = true }
        return edit
    }

    static func isStale(_ error: any Error) -> Bool {
        if case .staleEntry? = error as? SmartStoreError { return true }
        return false
    }

    /// a) The copy was read before a sync up created the record. Upserted, it would put back
    /// the local id and `__locally_created__`, and the next sync up would create it again.
    @Test func aCopyReadBeforeTheCreateIsRefused() async throws {
        try await withHarness { harness in
            let copy = try await harness.store.createLocally(["Name": "Draft"], objectType: "Account", in: "accounts")
            #expect(try await harness.manager.syncUp(options: Self.fields, soupName: "accounts").status == .done)
            let error = await #expect(throws: SmartStoreError.self) {
                try await harness.store.upsert(Self.edited(copy, name: "Renamed"), in: "accounts")
            }
            #expect(error.map(Self.isStale) == true, "\(String(describing: error))")
            #expect(try await harness.manager.syncUp(options: Self.fields, soupName: "accounts").status == .done)
            #expect(try await Self.serverNames(harness) == ["Draft"])
            // Read again, the edit goes through and up.
            let entryId = try #require(copy["_soupEntryId"]?.int64Value)
            let fresh = try await #require(try harness.store.retrieve([entryId], from: "accounts").first)
            try await harness.store.upsert(Self.edited(fresh, name: "Renamed"), in: "accounts")
            #expect(try await harness.manager.syncUp(options: Self.fields, soupName: "accounts").status == .done)
            #expect(try await Self.serverNames(harness) == ["Renamed"])
        }
    }

    /// b) The upsert lands while the create is on the wire, and its response is lost. Accepted,
    /// it erased the create's attempt, and the next run created the record a second time.
    @Test func aCopyUpsertedWhileTheCreateIsInFlightIsRefused() async throws {
        try await withHarness { harness in
            let copy = try await harness.store.createLocally(["Name": "Draft"], objectType: "Account", in: "accounts")
            let store = harness.store
            let refused = Locked<Bool?>(nil)
            await harness.localForce.faults.observe { request, moment in
                guard moment == .received, request.method == "POST", refused.current == nil else { return }
                do {
                    try await store.upsert(Self.edited(copy, name: "Renamed"), in: "accounts")
                    refused.withLock { $0 = false }
                } catch {
                    refused.withLock { $0 = Self.isStale(error) }
                }
            }
            await harness.localForce.faults.schedule(.dropAfter) { $0.method == "POST" }
            #expect(try await harness.manager.syncUp(options: Self.fields, soupName: "accounts").status == .failed)
            await harness.localForce.faults.observe(nil)
            #expect(refused.current == true)
            #expect(try await harness.manager.syncUp(options: Self.fields, soupName: "accounts").status == .done)
            #expect(try await Self.serverNames(harness) == ["Draft"])
        }
    }

    /// c) MERGE_FIELDS: the copy was read before a sync down brought another user's change to
    /// Industry. Accepted, its old Industry looked like a local change and went up, reverting
    /// the other user's change without a conflict.
    @Test func aCopyReadBeforeASyncDownIsRefused() async throws {
        try await withHarness { harness in
            let id = try await harness.client.create("Account", fields: ["Name": "Acme", "Industry": "Media"])
            let target = try SoqlSyncDownTarget(query: "SELECT Id, Name, Industry, LastModifiedDate FROM Account")
            let down = try await harness.manager.syncDown(
                target: target, options: SyncOptions(mergeMode: .mergeFields), soupName: "accounts")
            let copy = try #require(try harness.localRecords()[id])
            try await harness.client.update("Account", id: id, fields: ["Industry": "Retail"]) // another user
            #expect(try await harness.manager.reSync(id: down.id).status == .done)
            let error = await #expect(throws: SmartStoreError.self) {
                try await harness.store.upsert(Self.edited(copy, name: "Acme Corp"), in: "accounts")
            }
            #expect(error.map(Self.isStale) == true, "\(String(describing: error))")
            let options = SyncOptions(mergeMode: .mergeFields, fieldlist: ["Name", "Industry"])
            #expect(try await harness.manager.syncUp(options: options, soupName: "accounts").status == .done)
            let server = try await harness.client.retrieve("Account", id: id, fields: ["Industry"])
            #expect(server["Industry"] == "Retail")
        }
    }

    /// An entry the app saved, saved again from the copy it returned, is no stale copy; and
    /// every write stamps the entry anew, even two in one millisecond.
    @Test func theSavedEntryIsCurrentAndEveryWriteChangesTheStamp() async throws {
        try await withHarness { harness in
            var entry = try await harness.store.createLocally(["Name": "Draft"], objectType: "Account", in: "accounts")
            var stamps: Set<Int64> = []
            for round in 0..<50 {
                entry = try await harness.store.upsert(Self.edited(entry, name: "Round \(round)"), in: "accounts")
                stamps.insert(try #require(entry["_soupLastModifiedDate"]?.int64Value))
            }
            #expect(stamps.count == 50)
        }
    }
}
