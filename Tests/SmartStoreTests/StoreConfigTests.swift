import Foundation
import Testing
import SmartStore

/// `userstore.json` / `globalstore.json`: the SDK's own files load unchanged.
@Suite struct StoreConfigTests {
    /// `../shared/fixtures/sdk-configs` from the package root (or `$MSYNC_SHARED_DIR/fixtures/sdk-configs`).
    static let fixtures: URL = {
        if let shared = ProcessInfo.processInfo.environment["MSYNC_SHARED_DIR"] {
            return URL(fileURLWithPath: shared).appendingPathComponent("fixtures/sdk-configs")
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/fixtures/sdk-configs")
    }()

    @Test(arguments: ["android-test-userstore.json", "ios-test-userstore.json", "android-test-globalstore.json",
                      "ios-explorer-userstore.json", "shared-explorer-userstore.json"])
    func sdkConfigFilesLoad(_ file: String) throws {
        let config = try StoreConfig(contentsOf: Self.fixtures.appendingPathComponent(file))
        #expect(!config.soups.isEmpty)
        let store = try SmartStore()
        let registered = try store.apply(config)
        #expect(registered == config.soups.map(\.soupName))
        for soup in config.soups {
            #expect(try store.indexSpecs(ofSoup: soup.soupName).map(\.path) == soup.indexes.map(\.path))
        }
    }

    @Test func existingSoupsAreSkipped() throws {
        let store = try SmartStore()
        try store.registerSoup("userSoup1", indexSpecs: [IndexSpec("other", .string)])
        let config = try StoreConfig(contentsOf: Self.fixtures.appendingPathComponent("android-test-userstore.json"))
        #expect(try store.apply(config) == ["userSoup2"])
        #expect(try store.indexSpecs(ofSoup: "userSoup1").map(\.path) == ["other"])
        let specs = try store.indexSpecs(ofSoup: "userSoup2")
        #expect(specs.map(\.type) == [.string, .integer, .floating, .json1, .fullText])
    }

    @Test func badConfigsAreClearErrors() throws {
        func message(_ json: String) -> String? {
            do {
                _ = try StoreConfig(data: Array(json.utf8))
                return nil
            } catch {
                return (error as? SmartStoreError)?.description
            }
        }
        #expect(message(#"{}"#) == #"Store config needs a "soups" array"#)
        #expect(message(#"{"soups": [{"indexes": []}]}"#) == #"soups[0] has no "soupName" string"#)
        #expect(message(#"{"soups": [{"soupName": "s"}]}"#) == #"soup s has no "indexes" array"#)
        #expect(message(#"{"soups": [{"soupName": "s", "indexes": [{"path": "a", "type": "text"}]}]}"#) == #"soup s index a has unknown type "text""#)
        #expect(message(#"{"soups": [{"soupName": "s", "indexes": [{"path": "a"}]}]}"#) == #"soup s index 0 needs "path" and "type" strings"#)
        #expect(message(#"{"soups": [{"soupName": "s", "indexes": []}]}"#)?.contains("at least one index spec") == true)
        #expect(message(#"{"soups": [{"soupName": "s;drop", "indexes": [{"path": "a", "type": "string"}]}]}"#) == "soup s;drop: Invalid soup name: 's;drop'")
        #expect(throws: SmartStoreError.self) { try StoreConfig(contentsOf: URL(fileURLWithPath: "/nonexistent/userstore.json")) }
    }
}
