import Foundation
import TestSupport
import Testing

/// `msync` with encrypted stores: the key comes from an environment variable, the demo runs on
/// an encrypted store, and `msync store` encrypts, rekeys and exports.
@Suite struct EncryptedCommandTests {
    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> (status: Int32, output: String) {
        var base = ProcessInfo.processInfo.environment
        base["MSYNC_STORE_KEY"] = nil
        return try await Msync.run(arguments, environment: base.merging(environment) { $1 })
    }

    @Test func theDemoAndQueryOnAnEncryptedStore() async throws {
        let folder = try Msync.folder("encrypted-cli")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appendingPathComponent("demo.sqlite").path
        let key = ["MSYNC_STORE_KEY": "demo passphrase"]
        let demo = try await Self.run(["demo", "--accounts", "60", "--store", store, "--kdf-iterations", "4000"], environment: key)
        #expect(demo.status == 0, "\(demo.output)")
        #expect(demo.output.contains("encrypted (SQLCipher 4 format)") && demo.output.contains("round trip complete"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)).range(of: Data("Account".utf8)) == nil)

        let count = ["query", "--store", store, "--kdf-iterations", "4000", "select count(*) as n from {accounts}"]
        let query = try await Self.run(count, environment: key)
        // The demo's round trip deletes a few accounts on each side: the count is what the store has.
        #expect(query.status == 0 && query.output.hasPrefix(#"{"n":5"#), "\(query.output)")
        let named = try await Self.run(count + ["--key-env", "OTHER_KEY"], environment: ["OTHER_KEY": "demo passphrase"])
        #expect(named.output == query.output, "\(named.output)")
        let missing = try await Self.run(count)
        #expect(missing.status != 0 && missing.output.contains("is encrypted: set MSYNC_STORE_KEY to its key"), "\(missing.output)")
        let wrong = try await Self.run(count, environment: ["MSYNC_STORE_KEY": "guess"])
        #expect(wrong.status != 0 && wrong.output.contains("The key does not open"), "\(wrong.output)")
        let unset = try await Self.run(count + ["--key-env", "NOT_SET_ANYWHERE"])
        #expect(unset.status != 0 && unset.output.contains("--key-env names NOT_SET_ANYWHERE, which is not set"), "\(unset.output)")

        // A new key, then a decrypted copy that needs none.
        let rekey = try await Self.run(
            ["store", "rekey", "--store", store, "--kdf-iterations", "4000", "--new-key-env", "NEW_KEY"],
            environment: key.merging(["NEW_KEY": "x'" + String(repeating: "5a", count: 32) + "'"]) { $1 })
        #expect(rekey.status == 0, "\(rekey.output)")
        let plain = folder.appendingPathComponent("plain.sqlite").path
        let export = try await Self.run(
            ["store", "export", "--store", store, "--output", plain],
            environment: ["MSYNC_STORE_KEY": "x'" + String(repeating: "5a", count: 32) + "'"])
        #expect(export.status == 0, "\(export.output)")
        let exported = try await Self.run(["query", "--store", plain, "select count(*) as n from {accounts}"])
        #expect(exported.output == query.output, "\(exported.output)")
        // A key for the plaintext store: the error says how to encrypt it with msync.
        let keyed = try await Self.run(["soups", "--store", plain], environment: ["MSYNC_STORE_KEY": "again"])
        #expect(keyed.status == 1, "\(keyed.output)")
        #expect(keyed.output.contains("msync store encrypt --store \(plain)"), "\(keyed.output)")
        #expect(!keyed.output.contains("SmartStore.encrypt"), "\(keyed.output)")
        let encrypt = try await Self.run(["store", "encrypt", "--store", plain], environment: ["MSYNC_STORE_KEY": "again"])
        #expect(encrypt.status == 0, "\(encrypt.output)")
        let reencrypted = try await Self.run(
            ["query", "--store", plain, "select count(*) as n from {accounts}"], environment: ["MSYNC_STORE_KEY": "again"])
        #expect(reencrypted.output == query.output, "\(reencrypted.output)")
    }
}
