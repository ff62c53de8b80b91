import Foundation
import MobileSyncSDKCompat
import Testing

/// The SDK's own SmartStore Swift tests (SmartStoreTests.swift in its SmartStore library): the
/// same calls on the shared global store, written here as tests of ours. Serialized: they
/// configure the process's shared manager.
@Suite(.serialized) struct SDKSmartStoreSequenceTests {
    static let storeName = "SmartStoreTestsGlobalStore"

    /// The shared global store, as the SDK's test's `setUp` gets it, removed afterwards.
    static func withGlobalStore(_ body: (SmartStore?) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sdk-smartstore-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        MobileSyncSDKManager.shared.configure(root: folder, keyProvider: nil)
        defer { SmartStore.removeSharedGlobal(withName: storeName) }
        try body(SmartStore.sharedGlobal(withName: storeName))
    }

    @Test func registerSoup() throws {
        try Self.withGlobalStore { store in
            let result = try #require(store).registerSoup(withName: "MyTestSoup", withIndexPaths: ["key", "owner"])
            switch result {
            case .success(let val): #expect(val)
            case .failure: Issue.record("registerSoup should not have failed")
            }
        }
    }

    @Test func badRegisterSoup() throws {
        try Self.withGlobalStore { store in
            let result = try #require(store).registerSoup(withName: "", withIndexPaths: ["key", "owner"])
            switch result {
            case .success: Issue.record("registerSoup should have failed")
            case .failure(let error): #expect(!"\(error)".isEmpty)
            }
        }
    }

    @Test func query() throws {
        try Self.withGlobalStore { store in
            let store = try #require(store)
            _ = store.registerSoup(withName: "MyTestSoup", withIndexPaths: ["key", "owner"])
            store.upsert(
                entries: [["key": "key1", "owner": "owner1"], ["key": "key2", "owner": "owner2"], ["key": "key3", "owner": "owner1"]],
                forSoupNamed: "MyTestSoup")
            let result = store.query(
                "select {MyTestSoup:key} from {MyTestSoup} where {MyTestSoup:owner} = 'owner1' order by {MyTestSoup:key}")
            switch result {
            case .success(let val): #expect(val as? [[String]] == [["key1"], ["key3"]])
            case .failure: Issue.record("query should not have failed")
            }
        }
    }
}
