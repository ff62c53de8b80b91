import FastJSON
import Foundation
import SmartStore

/// The encrypting VFS reading hostile files: an encrypted store whose database or WAL bytes
/// the input overwrites (or replaces), opened with its key and queried. Any outcome but a
/// crash is fine: altered pages must become typed errors.
struct CipherStoreFuzzTarget: FuzzTarget {
    let folder: URL
    let database: [UInt8]
    let log: [UInt8]
    let key: StoreKey

    init() {
        do {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("msync-fuzz-cipher-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            key = try StoreKey.raw((0..<32).map { UInt8($0) })
            let path = folder.appendingPathComponent("base.sqlite").path
            let store = try SmartStore(path: path, key: key)
            try store.registerSoup("notes", indexSpecs: [IndexSpec("title", .string), IndexSpec("body", .fullText)])
            _ = try store.create(
                (0..<40).map { ["title": .string("note \($0)"), "body": .string(String(repeating: "word ", count: 60))] }, in: "notes")
            // Copied while open: the WAL holds the work.
            database = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            log = Array(try Data(contentsOf: URL(fileURLWithPath: path + "-wal")))
            try store.close()
        } catch {
            fatalError("fuzz store setup failed: \(error)")
        }
    }

    func run(_ data: [UInt8]) {
        guard let mode = data.first else { return }
        let patches = Array(data.dropFirst())
        var database = self.database
        var log: [UInt8]? = self.log
        switch mode % 4 {
        case 0: database = patches
        case 1: Self.patch(&database, with: patches)
        case 2:
            if var bytes = log {
                Self.patch(&bytes, with: patches)
                log = bytes
            }
        default: log = patches
        }
        let path = folder.appendingPathComponent("store.sqlite").path
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        _ = FileManager.default.createFile(atPath: path, contents: Data(database))
        if let log { _ = FileManager.default.createFile(atPath: path + "-wal", contents: Data(log)) }
        guard let store = try? SmartStore(path: path, key: key) else { return }
        _ = try? store.query(.smart("select count(*) from {notes}", pageSize: 1))
        _ = try? store.query(.smart("select {notes:_soup} from {notes}", pageSize: 100))
        _ = try? store.query(.match(soup: "notes", path: "body", key: "word", pageSize: 5))
        _ = try? store.create(["title": "after"], in: "notes")
        try? store.close()
    }

    /// Overwrites bytes of `file`: each 3 input bytes are an offset (2 bytes, scaled to the
    /// file's length) and the byte to store there.
    static func patch(_ file: inout [UInt8], with patches: [UInt8]) {
        guard !file.isEmpty else { return }
        var index = 0
        while index + 2 < patches.count {
            let position = (Int(patches[index]) << 8 | Int(patches[index + 1])) * file.count / 65536
            file[position] = patches[index + 2]
            index += 3
        }
    }
}
