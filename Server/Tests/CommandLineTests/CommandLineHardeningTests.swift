import Foundation
import LocalForceHTTP
import SalesforceREST
import SmartStore
import TestSupport
import Testing

/// The command line fails loudly and changes nothing it was only asked to read.
@Suite struct CommandLineHardeningTests {
    /// A self-signed set reused with a key others can read: the server says so, as it does for
    /// an `--auth` file.
    @Test func serveWarnsWhenTheReusedTLSKeyIsReadable() async throws {
        let folder = try Msync.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try LocalForceServer.TLS.selfSigned(in: folder)
        let key = folder.appendingPathComponent(LocalForceServer.TLS.keyFileName).path
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: key)
        let (serving, banner) = try await LoginCommandTests.serve(["--tls-self-signed", folder.path])
        defer {
            serving.terminate()
            serving.waitUntilExit()
        }
        #expect(banner.contains("\(key) holds the server's private key but others can read it (chmod 600 it)"), "\(banner)")
    }

    @Test func serveOnATakenPortExitsWithAMessage() async throws {
        let harness = try await CommandLineOrg()
        defer { Task { await harness.stop() } }
        let port = try #require(harness.baseURL.port)
        let (status, text) = try await Msync.run(["serve", "--port", "\(port)", "--token", "t"])
        #expect(status == 1, "\(text)")
        #expect(
            text
                == "Error: LocalForce could not listen on 127.0.0.1:\(port): port \(port) is in use; give another --port (0 picks a free one)\n",
            "\(text)")
        // The inspector's and the login's listeners say the same.
        let folder = try Msync.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appendingPathComponent("store.sqlite").path
        try SmartStore(path: store).close()
        let (inspectStatus, inspect) = try await Msync.run(["inspect", "--store", store, "--port", "\(port)"])
        #expect(inspectStatus == 1 && inspect.contains("port \(port) is in use; give another --port"), "\(inspect)")
        let (loginStatus, login) = try await Msync.run([
            "login", "--instance-url", harness.baseURL.absoluteString, "--client-id", "x", "--no-browser", "--callback-port", "\(port)",
            "--timeout", "5", "--account", "porttest",
        ])
        #expect(
            loginStatus == 1
                && login.contains(
                    "cannot listen on 127.0.0.1:\(port) for the login's redirect: port \(port) is in use; give another --callback-port"),
            "\(login)")
    }

    /// A file org stopped by SIGTERM is one file: its write-ahead log is emptied into it.
    @Test func aStoppedServerLeavesItsDatabaseInOneFile() async throws {
        let folder = try Msync.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("org.sqlite").path
        let serve = try await Background(
            try Msync.binary(), ["serve", "--port", "0", "--token", "t", "--database", database],
            until: "LocalForce listening on ")
        let url = try #require(
            serve.output.split(separator: "\n").first { $0.hasPrefix("LocalForce listening on ") }?.split(separator: " ").last)
        let client = RestClient(instanceURL: try #require(URL(string: String(url))), tokenProvider: StaticAccessToken("t"))
        for index in 0..<50 { _ = try await client.create("Account", fields: ["Name": .string("Kept \(index)")]) }
        await serve.stopped()
        let log = (try? FileManager.default.attributesOfItem(atPath: database + "-wal"))?[.size] as? Int
        #expect((log ?? 0) == 0, "org.sqlite-wal holds \(log ?? 0) bytes")
    }

    @Test func aDirectoryGivenAsTheStoreIsNamedAsOne() async throws {
        let folder = try Msync.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for arguments in [["soups"], ["query", "select 1"]] {
            let (status, text) = try await Msync.run(arguments + ["--store", folder.path])
            #expect(status == 1, "\(text)")
            #expect(text.contains("\(folder.path) is a directory: give the store's file"), "\(text)")
            #expect(!text.contains("disk I/O error"), "\(text)")
        }
    }

    /// A JSON file given as the store is named as a text file, not as an encrypted store
    /// wanting its key.
    @Test func aTextFileGivenAsTheStoreIsNamedAsOne() async throws {
        let folder = try Msync.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // A short file SQLite calls "not a database"; a longer one it took for an encrypted store.
        for size in [1, 100] {
            let file = folder.appendingPathComponent("usersyncs-\(size).json")
            let entries = (0..<size).map { #"{"syncName": "sync\#($0)", "syncType": "syncDown"}"# }.joined(separator: ", ")
            try Data(#"{"syncs": [\#(entries)]}"#.utf8).write(to: file)
            for arguments in [["soups"], ["syncs"], ["query", "select 1"]] {
                let (status, text) = try await Msync.run(arguments + ["--store", file.path])
                #expect(status == 1 && text.contains("\(file.path) is a text file (JSON?), not a store"), "\(text)")
                #expect(!text.contains("MSYNC_STORE_KEY"), "\(text)")
            }
        }
    }

    /// `query --org` with a token the org refuses says so, not that a session expired.
    @Test func queryWithARefusedTokenSaysSo() async throws {
        let harness = try await CommandLineOrg()
        defer { Task { await harness.stop() } }
        let (status, text) = try await Msync.run([
            "query", "--org", "--instance-url", harness.baseURL.absoluteString, "--token", "wrong", "SELECT Id FROM Account",
        ])
        #expect(status == 1 && text.contains("refused the token given with --token (INVALID_SESSION_ID)"), "\(text)")
        #expect(!text.contains("expired"), "\(text)")
    }

    @Test func queryNeverCreatesOrChangesAFile() async throws {
        let folder = try Msync.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // A missing path: an error, and nothing created.
        let missing = folder.appendingPathComponent("no/such/store.sqlite")
        let (missingStatus, missingText) = try await Msync.run(["query", "--store", missing.path, "select 1"])
        #expect(missingStatus != 0 && missingText.contains("No store at \(missing.path)"), "\(missingText)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("no").path))
        // An existing store: its bytes are the same after a query.
        let path = folder.appendingPathComponent("store.sqlite").path
        do {
            let store = try SmartStore(path: path)
            try store.registerSoup("accounts", indexSpecs: [IndexSpec("Name", .string)])
            _ = try await store.create(["Name": "Acme"], in: "accounts")
        }
        let listing = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let (status, text) = try await Msync.run(["query", "--store", path, "select {accounts:Name} from {accounts}"])
        #expect(status == 0 && text.contains("Acme"), "\(text)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == listing)
        // Not a store (a LocalForce org file): an error, and no SmartStore tables added.
        let org = folder.appendingPathComponent("org.sqlite").path
        try Data().write(to: URL(fileURLWithPath: org))
        let (orgStatus, orgText) = try await Msync.run(["query", "--store", org, "select 1"])
        #expect(orgStatus != 0 && orgText.contains("is not a SmartStore store"), "\(orgText)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: org)).isEmpty)
        // An empty path is a clear error.
        let (emptyStatus, emptyText) = try await Msync.run(["query", "--store", "", "select 1"])
        #expect(emptyStatus != 0 && emptyText.contains("must not be empty"), "\(emptyText)")
    }

    @Test func hugePagesAreTypedErrors() async throws {
        let folder = try Msync.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("store.sqlite").path
        let store = try SmartStore(path: path)
        try store.registerSoup("accounts", indexSpecs: [IndexSpec("Name", .string)])
        #expect(throws: SmartStoreError.self) {
            try store.query(.smart("select {accounts:Name} from {accounts}", pageSize: 10), pageIndex: .max)
        }
        let (status, text) = try await Msync.run([
            "query", "--store", path, "--page", "9223372036854775807", "select {accounts:Name} from {accounts}",
        ])
        #expect(status == 1 && text.contains("beyond the largest offset"), "\(text)")
    }

    @Test func syncFailsWhenEveryRequestedSyncWasRejected() async throws {
        let harness = try await CommandLineOrg()
        defer { Task { await harness.stop() } }
        let folder = try Msync.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let syncs = folder.appendingPathComponent("usersyncs.json")
        // The soup does not exist: the sync is rejected when created.
        try Data(
            #"{"syncs":[{"syncName":"orphans","syncType":"syncDown","soupName":"missing","target":{"type":"soql","query":"SELECT Id FROM Account"},"options":{"mergeMode":"OVERWRITE"}}]}"#
                .utf8
        )
        .write(to: syncs)
        let (status, text) = try await Msync.run([
            "sync", "--instance-url", harness.baseURL.absoluteString, "--token", CommandLineOrg.token,
            "--store", folder.appendingPathComponent("store.sqlite").path, "--syncs", syncs.path,
        ])
        #expect(status == 1, "\(text)")
        // Said before the store is created, which is then not created at all.
        #expect(text.contains("sync orphans needs soup missing, and a new store has none"), "\(text)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("store.sqlite").path))
    }
}
