import FastJSON
import Foundation
import Testing

@testable import SmartStore

/// Stores encrypted in SQLCipher 4's format: every store operation round-trips, nothing is
/// readable in the files, and a wrong key or a missing one gives a typed error.
@Suite struct EncryptedStoreTests {
    static let key = StoreKey(sqlcipherKey: "x'" + String(repeating: "2b7e151628aed2a6abf7158809cf4f3c", count: 2) + "'")
    static let marker = "PLAINTEXT-MARKER"

    /// Creates, upserts, updates, deletes, queries (Smart SQL, FTS5, JSON1), alters and clears
    /// on an encrypted store, then reopens it.
    @Test func everyStoreOperationRoundTrips() throws {
        let folder = TemporaryDirectory()
        let path = folder.path("store.sqlite")
        do {
            let store = try SmartStore(path: path, key: Self.key)
            #expect(store.isEncrypted)
            try Self.exercise(store)
            // The store is open: its WAL holds frames.
            #expect(try Self.fileContains(path + "-wal", Self.marker) == false)
            #expect(try Self.fileContains(path, Self.marker) == false)
        }
        #expect(try Self.fileContains(path, Self.marker) == false)
        #expect(FileManager.default.fileExists(atPath: path + "-wal") == false)

        let reopened = try SmartStore(path: path, key: Self.key)
        try Self.verify(reopened)
    }

    @Test func aPassphraseKeyRoundTrips() throws {
        let folder = TemporaryDirectory()
        let path = folder.path("store.sqlite")
        let key = StoreKey.passphrase("correct horse battery staple", kdfIterations: StoreKey.sdkKDFIterations)
        do {
            let store = try SmartStore(path: path, key: key)
            try store.registerSoup("notes", indexSpecs: [IndexSpec("title", .string)])
            _ = try store.create(["title": .string(Self.marker)], in: "notes")
        }
        let reopened = try SmartStore(path: path, key: StoreKey.passphrase("correct horse battery staple", kdfIterations: 4000))
        #expect(try reopened.query(.smart("select {notes:title} from {notes}", pageSize: 5)) == [[.string(Self.marker)]])
        #expect(try Self.fileContains(path, Self.marker) == false)
    }

    @Test func aWrongOrMissingKeyIsATypedErrorAndTheStoreIsKept() throws {
        let folder = TemporaryDirectory()
        let path = folder.path("store.sqlite")
        do {
            let store = try SmartStore(path: path, key: Self.key)
            try store.registerSoup("notes", indexSpecs: [IndexSpec("title", .string)])
            _ = try store.create(["title": "kept"], in: "notes")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: SmartStoreError.wrongKey(path: path)) { try SmartStore(path: path, key: .passphrase("wrong", kdfIterations: 4000)) }
        #expect(throws: SmartStoreError.keyRequired(path: path)) { try SmartStore(path: path) }
        #expect(throws: SmartStoreError.keyRequired(path: path)) { try SmartStore(readOnlyAt: path) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        let store = try SmartStore(path: path, key: Self.key)
        #expect(try store.query(.smart("select {notes:title} from {notes}", pageSize: 5)) == [["kept"]])
        // While it is open here with its key, another key cannot open it.
        #expect(throws: SmartStoreError.wrongKey(path: path)) { try SmartStore(path: path, key: .passphrase("other", kdfIterations: 4000)) }
    }

    @Test func aKeyForAPlaintextStoreIsATypedError() throws {
        let folder = TemporaryDirectory()
        let path = folder.path("plain.sqlite")
        do {
            let store = try SmartStore(path: path)
            try store.registerSoup("notes", indexSpecs: [IndexSpec("title", .string)])
        }
        #expect(throws: SmartStoreError.notEncrypted(path: path)) { try SmartStore(path: path, key: Self.key) }
        #expect(try SmartStore(path: path).hasSoup("notes"))
    }

    // MARK: - Helpers

    static func exercise(_ store: SmartStore) throws {
        try store.registerSoup(
            "accounts",
            indexSpecs: [
                IndexSpec("Id", .string), IndexSpec("Name", .fullText), IndexSpec("Industry", .json1), IndexSpec("Employees", .integer),
            ])
        let description = JSONValue.string(String(repeating: "\(marker) ", count: 20))
        let entries: [JSONValue] = (0..<600).map { index in
            let fields: [String: JSONValue] = [
                "Id": .string("001\(index)"), "Name": .string("\(marker) account \(index)"),
                "Industry": .string(index % 3 == 0 ? "Energy" : "Retail"), "Employees": .int(Int64(index)),
                "Description": description,
            ]
            return .object(fields)
        }
        _ = try store.upsert(entries, in: "accounts", externalIdPath: "Id")
        let renamed: [String: JSONValue] = ["Id": "0010", "Name": .string("\(marker) renamed"), "Industry": "Energy", "Employees": 0]
        _ = try store.upsert(.object(renamed), in: "accounts", externalIdPath: "Id")
        let first = try store.query(.smart("select {accounts:_soupEntryId} from {accounts} where {accounts:Id} = '0011'", pageSize: 1))
        let id = try #require(first.first?.arrayValue?.first?.int64Value)
        let updated: [String: JSONValue] = ["Id": "0011", "Name": .string("\(marker) updated"), "Industry": "Retail", "Employees": 1]
        _ = try store.update(.object(updated), id: id, in: "accounts")
        let doomed = try store.query(
            .smart("select {accounts:_soupEntryId} from {accounts} where {accounts:Employees} >= 590", pageSize: 20))
        try store.delete(doomed.compactMap { $0.arrayValue?.first?.int64Value }, from: "accounts")
        try store.alterSoup(
            "accounts", indexSpecs: [IndexSpec("Id", .string), IndexSpec("Name", .fullText), IndexSpec("Industry", .string)],
            reIndexData: true)
        try store.registerSoup("scratch", indexSpecs: [IndexSpec("k", .string)])
        _ = try store.create(["k": .string(marker)], in: "scratch")
        try store.clearSoup("scratch")
        try verify(store)
    }

    static func verify(_ store: SmartStore) throws {
        #expect(try store.query(.smart("select count(*) from {accounts}", pageSize: 1)) == [[590]])
        let energy = try store.query(.smart("select count(*) from {accounts} where {accounts:Industry} = 'Energy'", pageSize: 1))
        #expect(energy == [[197]])
        let matched = try store.query(.match(soup: "accounts", path: "Name", key: "renamed", orderPath: "Id", pageSize: 5))
        #expect(matched.count == 1)
        let updated = try store.query(.smart("select {accounts:Name} from {accounts} where {accounts:Id} = '0011'", pageSize: 1))
        #expect(updated == [[.string("\(marker) updated")]])
        let json = try store.query(
            .smart("select json_extract({accounts:_soup}, '$.Employees') from {accounts} where {accounts:Id} = '001142'", pageSize: 1))
        #expect(json == [[142]])
        #expect(try store.query(.smart("select count(*) from {scratch}", pageSize: 1)) == [[0]])
    }

    /// Whether the file's bytes contain `text` (a missing file contains nothing).
    static func fileContains(_ path: String, _ text: String) throws -> Bool {
        guard FileManager.default.fileExists(atPath: path) else { return false }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return data.range(of: Data(text.utf8)) != nil
    }
}
