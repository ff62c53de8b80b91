import FastJSON
import Foundation
import TestSupport
import Testing

@testable import SmartStore

/// Encrypted stores whose page 1 keeps SQLite's 32-byte header in plaintext (what a store in an
/// app-group container needs on iOS): SQLCipher opens them with `cipher_plaintext_header_size`
/// and the key with its salt, both ways; the layout is found when a store opens, chosen for new
/// stores in an app-group container, and a store moves between layouts with changeKey.
@Suite(.serialized) struct PlaintextHeaderTests {
    static let key = EncryptedStoreTests.key

    /// The first 32 bytes of the file.
    static func head(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path)).prefix(32))
    }

    /// SQLite's header: its magic, 4096-byte pages, 80 bytes reserved for the cipher.
    static func hasPlaintextHeader(_ path: String) throws -> Bool {
        let head = try head(path)
        return head.starts(with: Array("SQLite format 3".utf8) + [0]) && head[16] == 0x10 && head[17] == 0 && head[20] == 80
    }

    static func sqlcipher(_ arguments: [String]) async throws -> (Int32, String) {
        try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["SQLCIPHER_PLAINTEXT_HEADER=32", "python3", SQLCipherInteropTests.script.path] + arguments, timeout: .seconds(120))
    }

    @Test func aStoreMadeHereOpensInSQLCipherClosedOrWithItsLog() async throws {
        let folder = TemporaryDirectory()
        let path = folder.path("store.sqlite")
        let store = try SmartStore(path: path, key: Self.key, options: StoreOptions(plaintextHeader: true))
        try SQLCipherInteropTests.seed(store)
        #expect(try Self.hasPlaintextHeader(path))
        let text = try #require(try Self.key.withPlaintextHeaderSalt().sqlcipherKeyText)
        #expect(text.count == 2 + 96 + 1)
        // With its live log, as a crash leaves it: page 1's frames carry the header too.
        let copy = folder.path("copy.sqlite")
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        try FileManager.default.copyItem(atPath: path + "-wal", toPath: copy + "-wal")
        let (live, liveOutput) = try await Self.sqlcipher(["query", copy, text, "256000"] + SQLCipherInteropTests.checks)
        try #require(live == 0, "sqlcipher3 failed: \(liveOutput)")
        #expect(try JSONValue(parsing: Array(liveOutput.utf8)) == SQLCipherInteropTests.expected)
        try store.close()
        let (closed, output) = try await Self.sqlcipher(["query", path, text, "256000"] + SQLCipherInteropTests.checks)
        try #require(closed == 0, "sqlcipher3 failed: \(output)")
        #expect(try JSONValue(parsing: Array(output.utf8)) == SQLCipherInteropTests.expected)
        // Without the header size SQLCipher takes the header for a salt, and refuses the key.
        let (plain, _) = try await SQLCipherInteropTests.run(["query", path, text, "256000", "SELECT count(*) FROM TABLE_1"])
        #expect(plain != 0)
    }

    @Test func aStoreSQLCipherMadeWithAPlaintextHeaderOpensHere() async throws {
        let folder = TemporaryDirectory()
        let path = folder.path("sdk.sqlite")
        let sqlFile = folder.path("sdk.sql")
        try SQLCipherInteropTests.sdkLayout.write(toFile: sqlFile, atomically: true, encoding: .utf8)
        let text = "x'" + String(repeating: "0123456789abcdef", count: 4) + "fedcba98765432100123456789abcdef'"
        let (status, output) = try await Self.sqlcipher(["write", path, text, "256000", sqlFile, "--leave-wal"])
        try #require(status == 0, "sqlcipher3 failed: \(output)")
        #expect(try Self.hasPlaintextHeader(path))
        do {
            // Found to have a plaintext header, though the options say nothing of it.
            let store = try SmartStore(path: path, key: StoreKey(sqlcipherKey: text))
            #expect(try await store.query(.smart("select count(*) from {accounts}", pageSize: 1)) == [[200]])
            _ = try await store.upsert(["Id": "00142", "Name": "Written here", "Industry": "Energy"], in: "accounts", externalIdPath: "Id")
        }
        let (back, answer) = try await Self.sqlcipher([
            "query", path, text, "256000", "PRAGMA cipher_integrity_check",
            "SELECT json_extract(soup, '$.Name') FROM TABLE_1 WHERE TABLE_1_0 = '00142'",
        ])
        try #require(back == 0, "sqlcipher3 failed: \(answer)")
        #expect(try JSONValue(parsing: Array(answer.utf8)) == [[], [["Written here"]]])
    }

    @Test func theLayoutIsFoundChosenForAppGroupsAndChanged() throws {
        let folder = TemporaryDirectory()
        // A new store in an app-group container gets the header; elsewhere the salt stays first.
        let group = folder.path("Containers/Shared/AppGroup/5A1B/stores/store.sqlite")
        let other = folder.path("Library/Application Support/store.sqlite")
        for path in [group, other] {
            let store = try SmartStore(path: path, key: Self.key, options: StoreOptions())
            try store.registerSoup("accounts", indexSpecs: [IndexSpec("Id", .string)])
            _ = try store.upsert(["Id": "001A"], in: "accounts", externalIdPath: "Id")
            try store.close()
        }
        #expect(try Self.hasPlaintextHeader(group))
        #expect(try !Self.hasPlaintextHeader(other))
        #expect(StoreOptions(plaintextHeader: false).usesPlaintextHeader(forStoreAt: group, key: Self.key) == false)
        #expect(StoreOptions().usesPlaintextHeader(forStoreAt: group, key: Self.key))

        // Reopened in the layout it has, whatever the options say; a wrong key or none is refused.
        let reopened = try SmartStore(path: group, key: Self.key, options: StoreOptions(plaintextHeader: false))
        #expect(try reopened.count(.all(soup: "accounts", pageSize: 10)) == 1)
        try reopened.close()
        let wrong = StoreKey(sqlcipherKey: "x'" + String(repeating: "ff", count: 32) + "'")
        #expect(throws: SmartStoreError.wrongKey(path: group)) { try SmartStore(path: group, key: wrong) }
        #expect(throws: SmartStoreError.keyRequired(path: group)) { try SmartStore(path: group) }
        // A passphrase has no salt to keep with it: refused when asked for, the default layout
        // when the options say nothing.
        let passphrase = folder.path("Containers/Shared/AppGroup/5A1B/p.sqlite")
        #expect(throws: SmartStoreError.self) {
            try SmartStore(path: passphrase, key: .passphrase("pass", kdfIterations: 2), options: StoreOptions(plaintextHeader: true))
        }
        try SmartStore(path: passphrase, key: .passphrase("pass", kdfIterations: 2)).close()
        #expect(try !Self.hasPlaintextHeader(passphrase))

        // A plaintext copy keeps the cipher's reserved bytes, and is still no encrypted store.
        let exported = folder.path("exported.sqlite")
        try SmartStore.exportDecrypted(storeAt: group, key: Self.key, to: exported)
        #expect(try Self.head(exported)[20] == 80)
        #expect(throws: SmartStoreError.notEncrypted(path: exported)) { try SmartStore(path: exported, key: Self.key) }
        #expect(try SmartStore(path: exported).count(.all(soup: "accounts", pageSize: 10)) == 1)

        // Moved to the header and back, keeping what it holds.
        try SmartStore.changeKey(ofStoreAt: other, from: Self.key, to: Self.key, plaintextHeader: true)
        #expect(try Self.hasPlaintextHeader(other))
        try SmartStore.changeKey(ofStoreAt: other, from: Self.key, to: Self.key) // nil: the layout it has
        #expect(try Self.hasPlaintextHeader(other))
        try SmartStore.changeKey(ofStoreAt: other, from: Self.key, to: Self.key, plaintextHeader: false)
        #expect(try !Self.hasPlaintextHeader(other))
        let moved = try SmartStore(path: other, key: Self.key)
        #expect(try moved.count(.all(soup: "accounts", pageSize: 10)) == 1)
    }
}
