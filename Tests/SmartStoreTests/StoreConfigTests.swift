import Foundation
import SmartStore
import Testing

/// `userstore.json` / `globalstore.json`: files in the SDK's format load unchanged.
@Suite struct StoreConfigTests {
    /// `Tests/Fixtures/sdk-configs`: our own config files, written in the SDK's formats.
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/sdk-configs")

    @Test(arguments: ["userstore.json", "globalstore.json", "app-userstore.json"])
    func sdkFormatFilesLoad(_ file: String) throws {
        let config = try StoreConfig(contentsOf: Self.fixtures.appendingPathComponent(file))
        #expect(!config.soups.isEmpty)
        let store = try SmartStore()
        let registered = try store.apply(config)
        #expect(registered == config.soups.map(\.soupName))
        for soup in config.soups {
            let specs = try store.indexSpecs(ofSoup: soup.soupName)
            #expect(specs.map(\.path) == soup.indexes.map(\.path) && specs.map(\.type) == soup.indexes.map(\.type))
        }
    }

    @Test func existingSoupsAreSkipped() throws {
        let store = try SmartStore()
        try store.registerSoup("fieldVisits", indexSpecs: [IndexSpec("other", .string)])
        let config = try StoreConfig(contentsOf: Self.fixtures.appendingPathComponent("userstore.json"))
        #expect(try store.apply(config) == ["inspections"])
        #expect(try store.indexSpecs(ofSoup: "fieldVisits").map(\.path) == ["other"])
        let specs = try store.indexSpecs(ofSoup: "inspections")
        #expect(specs.map(\.type) == [.string, .integer, .floating, .json1, .fullText])
    }

    /// A file that is not a config is an error; a bad soup entry is skipped with a clear reason.
    @Test func badConfigsAreClearErrors() throws {
        func message(_ json: String) -> String? {
            do {
                return try StoreConfig(data: Array(json.utf8)).rejected.first?.reason
            } catch {
                return (error as? SmartStoreError)?.description
            }
        }
        #expect(message(#"{}"#) == #"Store config needs a "soups" array"#)
        #expect(message(#"{"soups": [{"indexes": []}]}"#) == #"soups[0] has no "soupName" string"#)
        #expect(message(#"{"soups": [{"soupName": "s"}]}"#) == #"soup s has no "indexes" array"#)
        #expect(
            message(#"{"soups": [{"soupName": "s", "indexes": [{"path": "a", "type": "text"}]}]}"#)
                == #"soup s index a has unknown type "text""#)
        #expect(
            message(#"{"soups": [{"soupName": "s", "indexes": [{"path": "a"}]}]}"#) == #"soup s index 0 needs "path" and "type" strings"#)
        #expect(message(#"{"soups": [{"soupName": "s", "indexes": []}]}"#)?.contains("at least one index spec") == true)
        #expect(
            message(#"{"soups": [{"soupName": "s;drop", "indexes": [{"path": "a", "type": "string"}]}]}"#)
                == "soup s;drop: Invalid soup name: 's;drop'")
        #expect(throws: SmartStoreError.self) { try StoreConfig(contentsOf: URL(fileURLWithPath: "/nonexistent/userstore.json")) }
    }

    /// As in the SDK, one bad soup entry does not keep the others from loading.
    @Test func aBadSoupIsSkippedAndTheOthersLoad() throws {
        let config = try StoreConfig(
            data: Array(
                #"""
                {"soups": [
                  {"soupName": "accounts", "indexes": [{"path": "Id", "type": "string"}]},
                  {"soupName": "broken", "indexes": [{"path": "Id", "type": "text"}]},
                  {"soupName": "contacts", "indexes": [{"path": "Id", "type": "string"}]}
                ]}
                """#.utf8))
        #expect(config.soups.map(\.soupName) == ["accounts", "contacts"])
        #expect(config.rejected.map(\.position) == [1] && config.rejected.map(\.soupName) == ["broken"])
        #expect(config.rejected.first?.reason == #"soup broken index Id has unknown type "text""#)
        let store = try SmartStore()
        #expect(try store.apply(config) == ["accounts", "contacts"])
        #expect(try !store.hasSoup("broken"))
    }
}
