import Foundation
import SmartStore
import TestSupport
import Testing

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// The command line touches nothing it should not: `msync serve` never writes LocalForce's
/// tables into another program's database, `msync sync` reads and checks every input before it
/// creates a store, and no command opens a FIFO (it would block for ever). Each case leaves the
/// folder byte-identical.
@Suite struct CommandLineFileSafetyTests {
    /// Every file of `folder` (name, kind and bytes; FIFOs by name only, never read).
    static func snapshot(_ folder: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            let path = folder.appendingPathComponent(name).path
            let type = try FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType
            files[name] =
                type == .typeRegular ? try Data(contentsOf: URL(fileURLWithPath: path)) : Data("\(type.map { "\($0)" } ?? "?")".utf8)
        }
        return files
    }

    @Test func serveRefusesAnotherProgramsDatabase() async throws {
        let folder = try Msync.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let storePath = folder.appendingPathComponent("store.sqlite").path
        do {
            let store = try SmartStore(path: storePath)
            try store.registerSoup("accounts", indexSpecs: [IndexSpec("Name", .string)])
            _ = try await store.create(["Name": "Acme"], in: "accounts")
            try store.close()
        }
        let before = try Self.snapshot(folder)
        let (status, text) = try await Msync.run(["serve", "--port", "0", "--token", "t", "--database", storePath])
        #expect(status != 0, "\(text)")
        #expect(text.contains("is not a LocalForce database") && text.contains("soup_attrs"), "\(text)")
        #expect(try Self.snapshot(folder) == before)
    }

    @Test func syncWithABadSyncsFileCreatesNoStore() async throws {
        let folder = try Msync.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let syncs = folder.appendingPathComponent("usersyncs.json")
        try Data("{\"syncs\": [ not json".utf8).write(to: syncs)
        let soups = folder.appendingPathComponent("userstore.json")
        try Data("{\"soups\": [{\"soupName\": \"accounts\", \"indexes\": [{\"path\": \"Id\", \"type\": \"string\"}]}]}".utf8).write(
            to: soups)
        let before = try Self.snapshot(folder)
        let store = folder.appendingPathComponent("new.sqlite").path
        let (status, text) = try await Msync.run([
            "sync", "--instance-url", "http://127.0.0.1:9", "--token", "t", "--store", store, "--store-config", soups.path,
            "--syncs", syncs.path,
        ])
        #expect(status == 1, "\(text)")
        #expect(try Self.snapshot(folder) == before, "the failed sync left files behind")
        // A bad soups file: the same.
        try Data("[1, 2".utf8).write(to: soups)
        let soupsBefore = try Self.snapshot(folder)
        let (soupsStatus, soupsText) = try await Msync.run([
            "sync", "--instance-url", "http://127.0.0.1:9", "--token", "t", "--store", store, "--store-config", soups.path, "accounts",
        ])
        #expect(soupsStatus == 1, "\(soupsText)")
        #expect(try Self.snapshot(folder) == soupsBefore)
    }

    @Test func noCommandOpensAFIFO() async throws {
        let folder = try Msync.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent("pipe").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let before = try Self.snapshot(folder)
        let commands: [[String]] = [
            ["query", "--store", fifo, "select 1"],
            ["soups", "--store", fifo],
            ["syncs", "--store", fifo],
            ["conflicts", "--store", fifo],
            ["sync", "--instance-url", "http://127.0.0.1:9", "--token", "t", "--store", fifo, "accounts"],
            [
                "sync", "--instance-url", "http://127.0.0.1:9", "--token", "t", "--store", folder.appendingPathComponent("s.sqlite").path,
                "--syncs", fifo,
            ],
            ["serve", "--port", "0", "--token", "t", "--database", fifo],
            ["serve", "--port", "0", "--token", "t", "--schema", fifo],
        ]
        // A command that waited for a writer on the FIFO would wait forever: the runner kills it
        // after 120 s (far longer than any of these takes on a loaded machine), and then it has
        // not printed the refusal.
        for command in commands {
            let (status, text) = try await Msync.run(command, timeout: .seconds(120))
            #expect(status != 0 && status != 15, "\(command): \(text)")
            #expect(text.contains("not a regular file"), "\(command): \(text)")
        }
        #expect(try Self.snapshot(folder) == before)
    }
}
