import Foundation
import GRDB

@testable import SmartStore

/// A process the crash tests kill: it fills an encrypted store, then stops in the middle of a
/// large write transaction (in WAL or rollback-journal mode) and waits to be killed.
///
/// `encrypted-store-writer PATH wal|journal|wal-commit`, with the key in `STORE_KEY` (SQLCipher
/// syntax). It prints `committed N` when the committed part is done, then `in transaction` once
/// the open transaction has spilled pages to disk. With `wal-commit` the large transaction
/// (whose spilled pages SQLite rewrites in the log, so it recomputes their checksums at
/// commit) is committed under `synchronous = NORMAL`, and it prints `committed transaction`.
@main struct EncryptedStoreWriter {
    static let marker = "PLAINTEXT-MARKER"

    static func main() throws {
        let arguments = CommandLine.arguments
        guard arguments.count == 3, let keyText = ProcessInfo.processInfo.environment["STORE_KEY"] else {
            FileHandle.standardError.write(Data("usage: STORE_KEY=… encrypted-store-writer PATH wal|journal|wal-commit\n".utf8))
            exit(2)
        }
        let path = arguments[1]
        let key = StoreKey(sqlcipherKey: keyText)
        do {
            let store = try SmartStore(path: path, key: key)
            try store.registerSoup("notes", indexSpecs: [IndexSpec("title", .string)])
            for batch in 0..<4 {
                _ = try store.create((0..<50).map { ["title": .string("\(marker) committed \(batch * 50 + $0)")] }, in: "notes")
            }
        }
        FileHandle.standardOutput.write(Data("committed 200\n".utf8))
        guard let lease = try StoreEncryption.lease(path: path, key: key) else { exit(2) }
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try StoreEncryption.prepare(db, lease: lease)
            // A tiny page cache: the open transaction spills pages to the file or the log.
            try db.execute(sql: "PRAGMA cache_size = 10")
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        let queue = try DatabaseQueue(path: StoreEncryption.location(of: path, lease: lease), configuration: configuration)
        let mode = arguments[2] == "journal" ? "DELETE" : "WAL"
        try queue.writeWithoutTransaction { db in
            _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = \(mode)")
            // In journal mode, a few committed transactions first, each through the journal.
            for index in 0..<3 {
                try db.execute(
                    sql: "UPDATE TABLE_1 SET soup = json_set(soup, '$.title', ?1), TABLE_1_0 = ?1 WHERE id = ?2",
                    arguments: ["\(marker) edited \(index)", index + 1])
            }
            try db.execute(sql: "BEGIN IMMEDIATE")
            let filler = String(repeating: "\(marker) uncommitted ", count: 40)
            for index in 0..<2000 {
                try db.execute(
                    sql: "INSERT INTO TABLE_1 (soup, created, lastModified, TABLE_1_0) VALUES (json_object('title', ?), 0, 0, ?)",
                    arguments: [filler, "uncommitted \(index)"])
                try db.execute(
                    sql: "UPDATE TABLE_1 SET soup = json_set(soup, '$.seen', ?) WHERE id = ?", arguments: [index, index % 200 + 1])
            }
            if arguments[2] == "wal-commit" {
                try db.execute(sql: "COMMIT")
                FileHandle.standardOutput.write(Data("committed transaction\n".utf8))
            } else {
                // The transaction stays open until the process is killed.
                FileHandle.standardOutput.write(Data("in transaction\n".utf8))
            }
            while true { sleep(60) }
        }
    }

}
