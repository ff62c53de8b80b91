import FastJSON
import Foundation
import TestSupport
import Testing

/// The example `userstore.json` and `usersyncs.json` in `docs/examples` work as they are: a new
/// store, every sync run, nothing left.
@Suite struct ExampleConfigTests {
    static let examples = Msync.serverPackage.deletingLastPathComponent().appendingPathComponent("docs/examples")

    @Test func theExampleConfigsSyncANewStore() async throws {
        let harness = try await CommandLineOrg()
        defer { Task { await harness.stop() } }
        let accounts = try await harness.createAccounts(3)
        _ = try await harness.client.create("Contact", fields: ["LastName": "Lovelace", "AccountId": .string(accounts[0])])
        let folder = try Msync.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appendingPathComponent("app.sqlite").path
        let (status, text) = try await Msync.run([
            "sync", "--instance-url", harness.baseURL.absoluteString, "--token", CommandLineOrg.token, "--store", store,
            "--store-config", Self.examples.appendingPathComponent("userstore.json").path,
            "--syncs", Self.examples.appendingPathComponent("usersyncs.json").path, "--json",
        ])
        #expect(status == 0, "\(text)")
        let states = try JSONValue(parsing: String(text.split(separator: "\n").last ?? "")).arrayValue ?? []
        #expect(states.map { $0["name"]?.stringValue ?? "" } == ["accountsDown", "accountsUp", "contactsDown", "contactsUp"], "\(text)")
        #expect(states.allSatisfy { $0["status"] == "DONE" && $0["left"] == [] }, "\(text)")
        #expect(states.first?["totalSize"] == 3 && states[2]["totalSize"] == 1, "\(text)")
    }
}
