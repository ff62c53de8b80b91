import FastJSON
import Foundation
import TestSupport
import Testing

@testable import SmartStore

/// Stores cross the border with SQLCipher 4 (PyPI's `sqlcipher3-binary`, SQLCipher 4.12
/// community) both ways, closed or with a live write-ahead log, FTS5 and JSON1 included.
@Suite(.serialized) struct SQLCipherInteropTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("sqlcipher_check.py")
    static let rawKey = "x'" + String(repeating: "00112233445566778899aabbccddeeff", count: 2) + "'"

    /// SQLCipher's answers to `sql`, one array of rows per statement.
    static func sqlcipher(_ path: String, key: String, kdfIterations: Int, _ sql: [String]) async throws -> JSONValue {
        let (status, output) = try await run(["query", path, key, String(kdfIterations)] + sql)
        try #require(status == 0, "sqlcipher3 failed: \(output)")
        return try JSONValue(parsing: Array(output.utf8))
    }

    /// Runs the script with `arguments`: its status and output.
    static func run(_ arguments: [String]) async throws -> (Int32, String) {
        try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", script.path] + arguments, timeout: .seconds(120))
    }

    static func seed(_ store: SmartStore) throws {
        try store.registerSoup(
            "accounts", indexSpecs: [IndexSpec("Id", .string), IndexSpec("Name", .fullText), IndexSpec("Industry", .json1)])
        let entries: [JSONValue] = (1...300).map { index in
            .object([
                "Id": .string("001\(index)"), "Name": .string("Account \(index)"),
                "Industry": .string(index % 2 == 0 ? "Energy" : "Retail"),
            ])
        }
        _ = try store.upsert(entries, in: "accounts", externalIdPath: "Id")
        _ = try store.upsert(["Id": "00177", "Name": "Zephyr Industries", "Industry": "Retail"], in: "accounts", externalIdPath: "Id")
    }

    static let checks = [
        "PRAGMA cipher_integrity_check", "PRAGMA integrity_check", "SELECT count(*) FROM TABLE_1",
        "SELECT json_extract(soup, '$.Id') FROM TABLE_1 WHERE TABLE_1_fts MATCH 'zephyr' AND TABLE_1.id = TABLE_1_fts.rowid",
        "SELECT count(*) FROM TABLE_1 WHERE json_extract(soup, '$.Industry') = 'Energy'",
    ].map { $0.replacingOccurrences(of: "FROM TABLE_1 WHERE TABLE_1_fts", with: "FROM TABLE_1, TABLE_1_fts WHERE TABLE_1_fts") }

    static let expected: JSONValue = [[], [["ok"]], [[300]], [["00177"]], [[150]]]

    /// A closed store made here, with a passphrase and SQLCipher's default 256,000 iterations.
    @Test func aClosedStoreMadeHereOpensInSQLCipher() async throws {
        let folder = TemporaryDirectory()
        let path = folder.path("store.sqlite")
        do {
            try Self.seed(try SmartStore(path: path, key: .passphrase("open sesame")))
        }
        #expect(try await Self.sqlcipher(path, key: "open sesame", kdfIterations: 256_000, Self.checks) == Self.expected)
    }

    /// A store open here, copied with its WAL (as a crash would leave it): SQLCipher recovers
    /// the log, checksums and pages alike.
    @Test func aLiveLogWrittenHereRecoversInSQLCipher() async throws {
        let folder = TemporaryDirectory()
        let path = folder.path("store.sqlite")
        let store = try SmartStore(path: path, key: StoreKey(sqlcipherKey: Self.rawKey))
        try Self.seed(store)
        let walSize = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int ?? 0
        #expect(walSize > 100_000, "the log holds the work")
        let copy = folder.path("copy.sqlite")
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        try FileManager.default.copyItem(atPath: path + "-wal", toPath: copy + "-wal")
        #expect(try await Self.sqlcipher(copy, key: Self.rawKey, kdfIterations: 256_000, Self.checks) == Self.expected)
        withExtendedLifetime(store) {}
    }

    /// A store made by SQLCipher in the SDK's layout (its schema, `kdf_iter = 4000`, WAL mode),
    /// left with an uncheckpointed log, answers Smart SQL, FTS5 and JSON1 queries here; what is
    /// written here then reads back in SQLCipher. Passphrases: a typed one, and the iOS SDK's
    /// kind (the Base64 text of a 32-byte Keychain key).
    @Test(arguments: ["sdk passcode", Data((0..<32).map { UInt8($0 * 7 % 256) }).base64EncodedString()])
    func aStoreMadeBySQLCipherAnswersSmartSQLHere(passphrase: String) async throws {
        let folder = TemporaryDirectory()
        let path = folder.path("sdk.sqlite")
        let sqlFile = folder.path("sdk.sql")
        try Self.sdkLayout.write(toFile: sqlFile, atomically: true, encoding: .utf8)
        let (status, output) = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["python3", Self.script.path, "write", path, passphrase, "4000", sqlFile, "--leave-wal"],
            timeout: .seconds(120))
        try #require(status == 0, "sqlcipher3 failed: \(output)")
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))

        do {
            let store = try SmartStore(path: path, key: .passphrase(passphrase, kdfIterations: StoreKey.sdkKDFIterations))
            let energy = try await store.query(
                .smart(
                    "select {accounts:Id} from {accounts} where {accounts:Industry} = 'Energy' order by {accounts:Id} limit 2", pageSize: 2)
            )
            #expect(energy == [["00110"], ["001100"]])
            #expect(try await store.query(.smart("select count(*) from {accounts}", pageSize: 1)) == [[200]])
            let matched = try await store.query(.match(soup: "accounts", path: "Name", key: "Account 42", pageSize: 5))
            #expect(matched.first?["Id"] == "00142")
            _ = try await store.upsert(["Id": "00142", "Name": "Written here", "Industry": "Energy"], in: "accounts", externalIdPath: "Id")
        }
        let back = try await Self.sqlcipher(
            path, key: passphrase, kdfIterations: 4000,
            ["PRAGMA cipher_integrity_check", "SELECT json_extract(soup, '$.Name') FROM TABLE_1 WHERE TABLE_1_0 = '00142'"])
        #expect(back == [[], [["Written here"]]])
    }

    /// The SDK's SmartStore schema with an `accounts` soup (Id string, Name full_text, Industry
    /// json1) and 200 records, in statements separated by ";\n".
    static let sdkLayout = """
        CREATE TABLE soup_index_map (soupName TEXT, path TEXT, columnName TEXT, columnType TEXT);
        CREATE INDEX soup_index_map_0 ON soup_index_map (soupName);
        CREATE TABLE soup_attrs (id INTEGER PRIMARY KEY AUTOINCREMENT, soupName TEXT);
        CREATE INDEX soup_attrs_0 ON soup_attrs (soupName);
        CREATE TABLE long_operations_status (id INTEGER PRIMARY KEY AUTOINCREMENT, type TEXT, details TEXT, status TEXT, created INTEGER, lastModified INTEGER);
        INSERT INTO soup_attrs (soupName) VALUES ('accounts');
        CREATE TABLE TABLE_1 (id INTEGER PRIMARY KEY AUTOINCREMENT, soup TEXT, created INTEGER, lastModified INTEGER, TABLE_1_0 TEXT, TABLE_1_1 TEXT);
        CREATE INDEX TABLE_1_created_idx ON TABLE_1 (created);
        CREATE INDEX TABLE_1_lastModified_idx ON TABLE_1 (lastModified);
        CREATE INDEX TABLE_1_0_idx ON TABLE_1 (TABLE_1_0);
        CREATE INDEX TABLE_1_1_idx ON TABLE_1 (TABLE_1_1);
        CREATE INDEX TABLE_1_2_idx ON TABLE_1 (json_extract(soup, '$.Industry'));
        CREATE VIRTUAL TABLE TABLE_1_fts USING fts5(TABLE_1_1);
        INSERT INTO soup_index_map (soupName, path, columnName, columnType) VALUES ('accounts', 'Id', 'TABLE_1_0', 'string'), ('accounts', 'Name', 'TABLE_1_1', 'full_text'), ('accounts', 'Industry', 'json_extract(soup, ''$.Industry'')', 'json1');
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
        INSERT INTO TABLE_1 (id, soup, created, lastModified, TABLE_1_0, TABLE_1_1)
        SELECT i, json_object('Id', '001' || i, 'Name', 'Account ' || i, 'Industry', CASE WHEN i % 2 = 0 THEN 'Energy' ELSE 'Retail' END,
            '_soupEntryId', i, '_soupLastModifiedDate', 1700000000000, 'attributes', json_object('type', 'Account')),
            1700000000000, 1700000000000, '001' || i, 'Account ' || i FROM n;
        INSERT INTO TABLE_1_fts (rowid, TABLE_1_1) SELECT id, TABLE_1_1 FROM TABLE_1;

        """
}
