import FastJSON
import Foundation
import GRDB
import TestSupport
import Testing

@testable import SmartStore

/// An encrypted store survives a process killed in the middle of a write transaction, in WAL
/// and in rollback-journal mode, and a flipped byte anywhere in a page is detected.
@Suite struct EncryptedCrashTests {
    static let key = StoreKey(sqlcipherKey: "x'" + String(repeating: "0f1e2d3c4b5a69788796a5b4c3d2e1f0", count: 2) + "'")
    static let keyText = "x'" + String(repeating: "0f1e2d3c4b5a69788796a5b4c3d2e1f0", count: 2) + "'"

    static var writer: URL {
        get throws {
            let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().deletingLastPathComponent()
            return try BuiltProduct.executable("encrypted-store-writer", package: package)
        }
    }

    /// `wal-commit`: the large transaction committed (under `synchronous = NORMAL`, with pages
    /// rewritten in the log, so SQLite rewrote frame headers at commit) and then killed: the
    /// transaction must survive.
    @Test(arguments: ["wal", "journal", "wal-commit"])
    func aProcessKilledInAWriteTransactionReopensConsistentAndEncrypted(mode: String) async throws {
        let folder = TemporaryDirectory()
        let path = folder.path("store.sqlite")
        let process = try RunningChild(try Self.writer, [path, mode], environment: ["STORE_KEY": Self.keyText], output: .standardOutput)
        let committed = mode == "wal-commit"
        let awaited = committed ? "committed transaction\n" : "in transaction\n"
        let text = await ChildProcess.read(try #require(process.output)) { $0.contains(awaited) || $0.contains("rror") }
        try #require(text.contains(awaited), "\(text)")
        let companion = path + (mode == "journal" ? "-journal" : "-wal")
        #expect(FileManager.default.fileExists(atPath: companion))
        for file in [path, path + "-wal", path + "-journal"] {
            #expect(try EncryptedStoreTests.fileContains(file, EncryptedStoreTests.marker) == false, "\(file)")
        }
        process.kill()
        process.waitUntilExit()
        #expect(FileManager.default.fileExists(atPath: companion), "the crash left the \(mode) behind")

        try Self.verifyAfterCrash(path, bigTransactionCommitted: committed)
    }

    static func verifyAfterCrash(_ path: String, bigTransactionCommitted: Bool) throws {
        let marker = EncryptedStoreTests.marker
        let store = try SmartStore(path: path, key: Self.key)
        #expect(try store.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") } == "ok")
        let large: Int64 = bigTransactionCommitted ? 2000 : 0
        #expect(try store.query(.smart("select count(*) from {notes}", pageSize: 1)) == [[.int(200 + large)]])
        let edited = try store.query(
            .smart("select {notes:title} from {notes} where {notes:_soupEntryId} <= 3 order by {notes:_soupEntryId}", pageSize: 5))
        let expected: [JSONValue] = (0..<3).map { [.string("\(marker) edited \($0)")] }
        #expect(edited == expected)
        #expect(
            try store.query(.smart("select count(*) from {notes} where {notes:_soup} like '%uncommitted%'", pageSize: 1)) == [[.int(large)]]
        )
        for file in [path, path + "-wal", path + "-journal"] {
            #expect(try EncryptedStoreTests.fileContains(file, marker) == false, "\(file)")
        }
    }

    /// One flipped byte in the ciphertext, the IV or the HMAC of a page gives a typed error
    /// naming the page, never different data.
    @Test(arguments: [100, 4020, 4090])
    func aFlippedByteIsDetected(offsetInPage: Int) throws {
        let folder = TemporaryDirectory()
        let path = folder.path("store.sqlite")
        do {
            let store = try SmartStore(path: path, key: Self.key)
            try store.registerSoup("notes", indexSpecs: [IndexSpec("title", .string)])
            _ = try store.create((0..<300).map { ["title": .string("note \($0) " + String(repeating: "x", count: 100))] }, in: "notes")
        }
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        let size = try handle.seekToEnd()
        let pages = Int(size) / 4096
        try #require(pages > 5)
        // The last page holds records of the soup table.
        let offset = UInt64((pages - 1) * 4096 + offsetInPage)
        try handle.seek(toOffset: offset)
        let byte = try #require(try handle.read(upToCount: 1)?.first)
        try handle.seek(toOffset: offset)
        try handle.write(contentsOf: [byte ^ 0x01])
        try handle.close()

        let store = try SmartStore(path: path, key: Self.key)
        #expect(throws: SmartStoreError.corrupted(path: path, detail: "page \(pages) of the database does not authenticate")) {
            _ = try store.read { db in try Row.fetchAll(db, sql: "SELECT * FROM TABLE_1") }
            _ = try store.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
        }
    }

    /// A flipped byte in page 1 reads as a wrong key: SQLCipher's format cannot tell them apart.
    @Test func aFlippedByteInPageOneIsAWrongKey() throws {
        let folder = TemporaryDirectory()
        let path = folder.path("store.sqlite")
        do { _ = try SmartStore(path: path, key: Self.key) }
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.seek(toOffset: 200)
        let byte = try #require(try handle.read(upToCount: 1)?.first)
        try handle.seek(toOffset: 200)
        try handle.write(contentsOf: [byte ^ 0x80])
        try handle.close()
        #expect(throws: SmartStoreError.wrongKey(path: path)) { try SmartStore(path: path, key: Self.key) }
    }
}
