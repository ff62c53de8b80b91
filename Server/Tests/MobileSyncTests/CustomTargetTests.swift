import FastJSON
import MobileSync
import SalesforceREST
import SmartStore
import Testing

/// Custom targets written against the public API only (a plain `import MobileSync`): they do
/// what the built-in ones do.
@Suite struct CustomTargetTests {
    /// A sync down that writes two soups: accounts, and one entry per industry with its count.
    // snippet.syncDown (the Custom targets article shows it)
    struct AccountsAndIndustries: SyncDownTarget {
        var json: JSONValue { ["type": "accountsAndIndustries"] }
        var idFieldName: String { "Id" }
        var modificationDateFieldName: String { "LastModifiedDate" }

        func syncDown(_ sync: inout SyncState, context: SyncContext) async throws {
            try context.requireSoups([sync.soupName, "industries"])
            let client = context.client
            var page = try await client.query("SELECT Id, Name, Industry, LastModifiedDate FROM Account ORDER BY Name")
            sync.totalSize = page.totalSize
            try await context.save(&sync)
            var counts: [String: Int64] = [:]
            while true {
                try await context.checkStop()
                let records = try page.records()
                for record in records { counts[record["Industry"]?.stringValue ?? "None", default: 0] += 1 }
                let latest = try await context.saveRecords(records, in: sync.soupName, for: sync)
                sync.maxTimeStamp = max(sync.maxTimeStamp, latest ?? -1)
                sync.recordsFetched += records.count
                guard !page.done, let next = page.nextRecordsURL else { break }
                try await context.save(&sync)
                page = try await client.queryMore(next)
            }
            let industries: [JSONValue] = counts.map { name, count in
                ["Id": .string(name), "Name": .string(name), "Accounts": .int(count), "LastModifiedDate": "2026-01-01T00:00:00.000+0000"]
            }
            try await context.saveRecords(industries, in: "industries", for: sync)
        }

        func cleanGhosts(_ sync: SyncState, context: SyncContext) async throws -> Int {
            let client = context.client
            return try await context.deleteGhosts(soup: sync.soupName, syncId: sync.id) { local in
                let existing = try await client.records(from: client.query("SELECT Id FROM Account"))
                return Set(existing.compactMap { $0["Id"]?.stringValue }).intersection(local)
            }
        }
    }
    // snippet.end

    @Test func syncDownTargetWritesSeveralSoups() async throws {
        try await withHarness { harness in
            try harness.store.registerSoup(
                "industries", indexSpecs: [IndexSpec("Id", .string), IndexSpec("__local__", .string), IndexSpec("__sync_id__", .integer)])
            for (name, industry) in [("A", "Energy"), ("B", "Energy"), ("C", "Retail")] {
                _ = try await harness.client.create("Account", fields: ["Name": .string(name), "Industry": .string(industry)])
            }
            let progress = SyncHarness.Progress()
            let sync = try await harness.manager.syncDown(target: AccountsAndIndustries(), soupName: "accounts", name: "custom") {
                progress.record($0)
            }
            #expect(sync.status == .done && sync.recordsFetched == 3, "\(sync.error)")
            #expect(progress.trace == ["RUNNING 0 -1", "RUNNING 0 3", "DONE 100 3"])
            #expect(try harness.localRecords().count == 3)
            let industries = try await harness.store.query(.all(soup: "industries", orderPath: "Id", pageSize: 10))
            #expect(industries.map { $0["Id"] } == ["Energy", "Retail"])
            #expect(industries.map { $0["Accounts"] } == [2, 1])
            #expect(industries.allSatisfy { $0["__sync_id__"]?.int64Value == sync.id && $0["__local__"] == false })

            let gone = try harness.localRecords().values.first { $0["Name"] == "C" }?["Id"]?.stringValue ?? ""
            try await harness.client.delete("Account", id: gone)
            // Ghost cleanup rebuilds the target from its JSON: through the registry.
            harness.manager.targets.register(syncDown: "accountsAndIndustries") { _ in AccountsAndIndustries() }
            #expect(try await harness.manager.cleanResyncGhosts(named: "custom") == 1)
            #expect(try harness.localRecords()[gone] == nil)
        }
    }

    /// A sync up through the SDK's hooks: only records named "Push…" go up, records named
    /// "Push hold" are held back as if changed on the server, and a delete archives instead.
    // snippet.syncUp (the Custom targets article shows it)
    struct ArchivingTarget: RecordSyncUpTarget {
        var json: JSONValue { ["type": "archiving"] }
        var idFieldName: String { "Id" }
        var modificationDateFieldName: String { "LastModifiedDate" }
        var maxBatchSize: Int { 10 }
        var createFieldlist: [String]? { ["Name"] }
        var updateFieldlist: [String]? { ["Name"] }
        var externalIdFieldName: String? { nil }

        func entryIdsToSyncUp(soupName: String, context: SyncContext) async throws -> [Int64] {
            let dirty = try await context.dirtyEntryIds(soup: soupName)
            return try await context.store.retrieve(dirty, from: soupName).compactMap { record in
                record["Name"]?.stringValue?.hasPrefix("Push") == true ? record["_soupEntryId"]?.int64Value : nil
            }
        }

        func isNewerThanServer(_ record: JSONValue, client: RestClient) async throws -> Bool {
            record["Name"] != "Push hold"
        }

        func deleteOnServer(objectType: String, id: String, client: RestClient) async throws -> SyncUpResponse {
            try await updateOnServer(
                objectType: objectType, id: id, fields: ["Description": "archived"], ifUnmodifiedSince: nil, client: client)
        }
    }
    // snippet.end

    @Test func syncUpTargetUsesTheSDKHooks() async throws {
        try await withHarness { harness in
            let ids = try await harness.createAccounts(3)
            let down = try await harness.manager.syncDown(
                target: try SoqlSyncDownTarget(query: "SELECT Id, Name FROM Account"), soupName: "accounts")
            #expect(down.status == .done)
            let store = harness.store
            try await store.createLocally(["Name": "Push new"], objectType: "Account", in: "accounts")
            try await store.createLocally(["Name": "Stay local"], objectType: "Account", in: "accounts")
            _ = try await store.updateLocally(["Name": "Push hold"], entryId: harness.localEntryId(ids[0]), in: "accounts")
            _ = try await store.deleteLocally(entryId: harness.localEntryId(ids[1]), in: "accounts")
            _ = try await store.updateLocally(["Name": "Push renamed"], entryId: harness.localEntryId(ids[2]), in: "accounts")
            // Deleted locally but named "Account 00001": not chosen, so it stays dirty.
            let sync = try await harness.manager.syncUp(
                target: ArchivingTarget(), options: SyncOptions(mergeMode: .leaveIfChanged), soupName: "accounts")
            #expect(sync.status == .done && sync.totalSize == 3, "\(sync.error)")

            let server = try await harness.client.records(from: harness.client.query("SELECT Id, Name, Description FROM Account"))
            let names = Set(server.compactMap { $0["Name"]?.stringValue })
            #expect(names == ["Account 00000", "Account 00001", "Push renamed", "Push new"])
            let local = try harness.localRecords().values
            #expect(local.first { $0["Name"] == "Push new" }?["__local__"] == false)
            #expect(local.first { $0["Name"] == "Push renamed" }?["__local__"] == false)
            #expect(local.first { $0["Name"] == "Push hold" }?["__local__"] == true)
            #expect(local.first { $0["Name"] == "Stay local" }?["__local__"] == true)
            #expect(local.first { $0["Id"]?.stringValue == ids[1] }?["__locally_deleted__"] == true)
        }
    }

    @Test func deleteHookArchives() async throws {
        try await withHarness { harness in
            let ids = try await harness.createAccounts(1, prefix: "Push")
            _ = try await harness.manager.syncDown(
                target: try SoqlSyncDownTarget(query: "SELECT Id, Name FROM Account"), soupName: "accounts")
            _ = try await harness.store.deleteLocally(entryId: harness.localEntryId(ids[0]), in: "accounts")
            let sync = try await harness.manager.syncUp(target: ArchivingTarget(), soupName: "accounts")
            #expect(sync.status == .done, "\(sync.error)")
            #expect(try await harness.client.retrieve("Account", id: ids[0], fields: ["Description"])["Description"] == "archived")
            #expect(try harness.localRecords()[ids[0]] == nil)
        }
    }

    /// A target that runs the whole sync up itself: each dirty record is updated with
    /// `If-Unmodified-Since` its local date (LEAVE_IF_CHANGED done by hand), then given the
    /// server's date through ``SyncContext/serverModificationDates(of:target:)``.
    struct ConditionalUpdates: SyncUpTarget {
        var json: JSONValue { ["type": "conditionalUpdates"] }
        var idFieldName: String { "Id" }
        var modificationDateFieldName: String { "LastModifiedDate" }

        func syncUp(_ sync: inout SyncState, context: SyncContext) async throws {
            let soup = sync.soupName
            for record in try await context.store.retrieve(try await context.dirtyEntryIds(soup: soup), from: soup) {
                guard let id = record["Id"]?.stringValue, let entryId = record["_soupEntryId"]?.int64Value else { continue }
                let since = record["LastModifiedDate"]?.stringValue.flatMap(SalesforceTime.parse)
                let fields: [String: JSONValue] = ["Name": record["Name"] ?? .null]
                do {
                    try await context.client.update("Account", id: id, fields: .object(fields), ifUnmodifiedSince: since)
                } catch RestError.http(412, _, _) {
                    continue
                }
                let dates = await context.serverModificationDates(
                    of: [WrittenRecord(objectType: "Account", serverId: id, sentFields: fields)], target: self)
                try await context.store.modify(entryId, in: soup) { entry in
                    entry["__local__"] = false
                    entry["__locally_updated__"] = false
                    if let date = dates[id] { entry["LastModifiedDate"] = date }
                }
            }
        }
    }

    @Test func aTargetOfItsOwnLearnsTheServerDates() async throws {
        try await withHarness { harness in
            let ids = try await harness.createAccounts(1)
            _ = try await harness.manager.syncDown(
                target: try SoqlSyncDownTarget(query: "SELECT Id, Name, LastModifiedDate FROM Account"), soupName: "accounts")
            for edit in 1...3 {
                try await Task.sleep(for: .milliseconds(1050)) // If-Unmodified-Since compares whole seconds
                _ = try await harness.store.updateLocally(
                    ["Name": .string("edit \(edit)")], entryId: harness.localEntryId(ids[0]), in: "accounts")
                let sync = try await harness.manager.syncUp(target: ConditionalUpdates(), soupName: "accounts")
                #expect(sync.status == .done, "\(sync.error)")
                #expect(try await harness.client.retrieve("Account", id: ids[0], fields: ["Name"])["Name"] == .string("edit \(edit)"))
                #expect(try harness.localRecords()[ids[0]]?["__local__"] == false)
            }
        }
    }
}
