import FastJSON
import Foundation
import LocalForceTesting
import SalesforceREST
import SmartStore
import TestLocking

@testable import LocalForce
@testable import MobileSync

/// A ``TestOrg`` over HTTP (LocalForce on 127.0.0.1:0), a fresh in-memory store with an
/// `accounts` soup, and a manager.
final class SyncHarness: Sendable {
    static let token = TestOrg.token
    let org: TestOrg
    let store: SmartStore
    let manager: SyncManager

    init(
        localIndex: SoupIndexType? = .string, schema: Schema = .standard, briefcaseRules: [BriefcaseRule] = [],
        clockOffset: Duration = .zero, streaming: StreamingOptions = StreamingOptions(),
        lostCreateWait: Duration = SyncManager.defaultLostCreateWait
    ) async throws {
        org = try await TestOrg.start(
            schema: schema, transport: .http, clockOffset: clockOffset, briefcaseRules: briefcaseRules, streaming: streaming)
        store = try SmartStore()
        var specs = [
            IndexSpec("Id", .string), IndexSpec("Name", .string), IndexSpec("LastModifiedDate", .string),
            IndexSpec("__sync_id__", .integer),
        ]
        if let localIndex { specs.append(IndexSpec("__local__", localIndex)) }
        try store.registerSoup("accounts", indexSpecs: specs)
        manager = try SyncManager(store: store, client: org.client, lostCreateWait: lostCreateWait)
    }

    func stop() async { await org.stop() }

    var localForce: LocalForce { org.localForce }
    var client: RestClient { org.client }
    /// The org's HTTP address.
    var baseURL: URL { org.baseURL ?? URL(fileURLWithPath: "/") }

    /// Creates accounts on the server; returns their ids.
    @discardableResult
    func createAccounts(_ count: Int, prefix: String = "Account") async throws -> [String] {
        var ids: [String] = []
        for start in stride(from: 0, to: count, by: 200) {
            let records: [JSONValue] = (start..<min(count, start + 200)).map { index in
                ["attributes": ["type": "Account"], "Name": .string(String(format: "\(prefix) %05d", index)), "Industry": "Energy"]
            }
            ids += try await client.createRecords(records).compactMap(\.id)
        }
        return ids
    }

    /// Local entries of the soup by Id.
    func localRecords() throws -> [String: JSONValue] {
        var records: [String: JSONValue] = [:]
        var page = 0
        while true {
            let entries = try store.query(.all(soup: "accounts", orderPath: "Id", pageSize: 1000), pageIndex: page)
            for entry in entries { if let id = entry["Id"]?.stringValue { records[id] = entry } }
            if entries.count < 1000 { return records }
            page += 1
        }
    }

    func localEntryId(_ id: String) throws -> Int64 {
        try store.lookupSoupEntryId(soup: "accounts", path: "Id", value: .string(id)) ?? -1
    }

    /// Records the progress updates of a run.
    final class Progress: Sendable {
        private let states = Locked<[SyncState]>([])
        var all: [SyncState] { states.current }
        /// `STATUS progress totalSize` per update.
        var trace: [String] { all.map { "\($0.status.rawValue) \($0.progress) \($0.totalSize)" } }
        func record(_ state: SyncState) { states.withLock { $0.append(state) } }
    }
}

func withHarness(
    localIndex: SoupIndexType? = .string, schema: Schema = .standard, briefcaseRules: [BriefcaseRule] = [],
    clockOffset: Duration = .zero, streaming: StreamingOptions = StreamingOptions(),
    lostCreateWait: Duration = SyncManager.defaultLostCreateWait, _ body: (SyncHarness) async throws -> Void
) async throws {
    let harness = try await SyncHarness(
        localIndex: localIndex, schema: schema, briefcaseRules: briefcaseRules, clockOffset: clockOffset, streaming: streaming,
        lostCreateWait: lostCreateWait)
    do {
        try await body(harness)
    } catch {
        await harness.stop()
        throw error
    }
    await harness.stop()
}

/// Counts calls from `@Sendable` closures (server observers, fault predicates).
final class CallCounter: Sendable {
    private let count = Locked(0)
    /// 1 on the first call, 2 on the second, …
    func next() -> Int {
        count.withLock {
            $0 += 1
            return $0
        }
    }
}
