import FastJSON
import SalesforceREST
import SmartStore
import Testing

@testable import MobileSync

/// The public record helpers, and records whose flags are written as the Android SDK writes
/// them (the text `'true'` / `'false'`).
@Suite struct LocalFieldsTests {
    @Test func flagsAsEverySDKWritesThem() {
        let ios: JSONValue = ["__local__": true, "__locally_created__": true, "__locally_updated__": false, "__locally_deleted__": 0]
        #expect(LocalFields.isDirty(ios) && LocalFields.isLocallyCreated(ios))
        #expect(!LocalFields.isLocallyUpdated(ios) && !LocalFields.isLocallyDeleted(ios))
        let android: JSONValue = ["__local__": "true", "__locally_updated__": "true", "__locally_deleted__": "false"]
        #expect(LocalFields.isDirty(android) && LocalFields.isLocallyUpdated(android) && !LocalFields.isLocallyDeleted(android))
        let numeric: JSONValue = ["__local__": 1, "__locally_deleted__": "1"]
        #expect(LocalFields.isDirty(numeric) && LocalFields.isLocallyDeleted(numeric))
        #expect(!LocalFields.isDirty(["Name": "no flags"]) && !LocalFields.isDirty(["__local__": "false"]))
    }

    /// Several entries deleted locally at once: the flags `deleteLocally` sets, in one
    /// transaction, missing ids skipped.
    @Test func deletingSeveralEntriesLocally() async throws {
        let store = try SmartStore()
        try store.registerSoup("accounts", indexSpecs: [IndexSpec("Id", .string)])
        let saved = try await store.create(
            [["Id": "001A", "Name": "A"], ["Id": "001B", "Name": "B"], ["Id": "001C", "Name": "C"]], in: "accounts")
        let ids = saved.compactMap { $0["_soupEntryId"]?.int64Value }
        let marked = try await store.deleteLocally(entryIds: [ids[2], 999, ids[0]], in: "accounts")
        #expect(marked.map { $0["Id"] } == ["001C", "001A"])
        #expect(marked.allSatisfy { LocalFields.isLocallyDeleted($0) && LocalFields.isDirty($0) && !LocalFields.isLocallyUpdated($0) })
        let untouched = try await store.retrieve([ids[1]], from: "accounts")
        #expect(untouched.first.map(LocalFields.isDirty) == false)
    }

    @Test func syncStateConveniences() {
        var state = SyncState(kind: .syncDown, name: nil, target: ["type": "soql"], options: SyncOptions(), soupName: "accounts")
        #expect(!state.isDone && !state.isRunning)
        state.status = .done
        #expect(state.isDone && !state.hasFailed && !state.isRunning && !state.isStopped)
        state.status = .failed
        #expect(state.hasFailed && !state.isDone)
        state.status = .running
        #expect(state.isRunning)
        state.status = .stopped
        #expect(state.isStopped)
    }

    /// Dirty ids, sync up and ghost cleanup see flags stored as text, as in a store the Android
    /// SDK wrote: its index columns hold `'true'` and `'false'`.
    @Test func androidTextFlagsAreDirtyAndClean() async throws {
        try await withHarness { harness in
            let store = harness.store
            let created = try await store.create(
                [
                    "Id": "local_android1", "Name": "From Android", "attributes": ["type": "Account"], "__local__": "true",
                    "__locally_created__": "true", "__locally_updated__": "false", "__locally_deleted__": "false",
                ], in: "accounts")
            let clean = try await store.create(
                ["Id": "001000000000000AAA", "Name": "Clean", "attributes": ["type": "Account"], "__local__": "false"], in: "accounts")
            let entryId = try #require(created["_soupEntryId"]?.int64Value)
            #expect(try await store.dirtyEntryIds(soup: "accounts") == [entryId])
            #expect(try await store.dirtyRecordIds(soup: "accounts") == ["local_android1"])
            #expect(clean["_soupEntryId"] != nil)

            let sync = try await harness.manager.syncUp(options: SyncOptions(fieldlist: ["Name"]), soupName: "accounts")
            #expect(sync.isDone && sync.failedRecordCount == 0)
            let server = try await harness.client.allRecords("SELECT Id, Name FROM Account")
            #expect(server.map { $0["Name"] } == ["From Android"])
            #expect(try await store.dirtyEntryIds(soup: "accounts").isEmpty)
        }
    }
}
