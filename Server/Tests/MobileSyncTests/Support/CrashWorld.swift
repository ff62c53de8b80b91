import FastJSON
import Foundation
import LocalForceHTTP
import MobileSync
import SalesforceREST
import SmartStore
import TestLocking

@testable import LocalForce

/// A client store and a LocalForce, both in SQLite files, that can be copied as they are on
/// disk at any instant: a copy is what a process killed at that instant leaves behind.
final class CrashWorld: Sendable {
    static let token = "crash-token"
    let folder: URL
    let server: LocalForceServer
    let store: SmartStore
    let client: RestClient

    /// A fresh world, or one reopened from a ``Snapshot``.
    init(folder: URL, reopening snapshot: Snapshot? = nil) async throws {
        self.folder = folder
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let serverPath = snapshot?.serverPath ?? folder.appendingPathComponent("server.sqlite").path
        let storePath = snapshot?.storePath ?? folder.appendingPathComponent("store.sqlite").path
        let localForce = try await LocalForce(schema: .standard, database: try SQLiteDatabase(path: serverPath), token: Self.token)
        server = try await LocalForceServer.start(localForce)
        store = try SmartStore(path: storePath)
        if snapshot == nil {
            try store.registerSoup(
                "accounts",
                indexSpecs: [
                    IndexSpec("Id", .string), IndexSpec("Name", .string),
                    IndexSpec("__local__", .string), IndexSpec("__sync_id__", .integer),
                ])
        }
        client = RestClient(
            instanceURL: server.baseURL, tokenProvider: StaticAccessToken(Self.token),
            retryPolicy: RetryPolicy(maximumAttempts: 2, initialDelay: .milliseconds(5)))
    }

    func stop() async { await server.stop() }

    /// Both databases as files on disk right now.
    struct Snapshot: Sendable {
        let label: String
        let storePath: String
        let serverPath: String
    }

    /// Copies the databases (main file and write-ahead log; the shared-memory index is rebuilt
    /// on open). Call it while no write is under way, as a crash between two statements.
    func snapshot(_ label: String, index: Int) throws -> Snapshot {
        let target = folder.appendingPathComponent("snapshot-\(index)")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        let snapshot = Snapshot(
            label: label, storePath: target.appendingPathComponent("store.sqlite").path,
            serverPath: target.appendingPathComponent("server.sqlite").path)
        try Self.copyDatabase(folder.appendingPathComponent("store.sqlite").path, to: snapshot.storePath)
        try Self.copyDatabase(folder.appendingPathComponent("server.sqlite").path, to: snapshot.serverPath)
        return snapshot
    }

    private static func copyDatabase(_ source: String, to destination: String) throws {
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: source + suffix) {
            try FileManager.default.copyItem(atPath: source + suffix, toPath: destination + suffix)
        }
    }

    /// Server accounts, Id → Name, every page.
    func serverNames() async throws -> [String: String] {
        var names: [String: String] = [:]
        for record in try await client.allRecords("SELECT Id, Name FROM Account") {
            if let id = record["Id"]?.stringValue { names[id] = record["Name"]?.stringValue }
        }
        return names
    }

    /// Local accounts, Id → Name, and how many entries the soup holds (duplicates show as a
    /// count larger than the map).
    func localNames() throws -> (names: [String: String], entries: Int) {
        let entries = try store.query(.all(soup: "accounts", orderPath: "Id", pageSize: 100_000))
        var names: [String: String] = [:]
        for entry in entries { if let id = entry["Id"]?.stringValue { names[id] = entry["Name"]?.stringValue } }
        return (names, entries.count)
    }

    /// Creates accounts on the server; returns their ids.
    @discardableResult
    func createAccounts(_ count: Int, prefix: String) async throws -> [String] {
        var ids: [String] = []
        for start in stride(from: 0, to: count, by: 200) {
            let records: [JSONValue] = (start..<min(count, start + 200)).map { index in
                ["attributes": ["type": "Account"], "Name": .string("\(prefix) \(index)")]
            }
            ids += try await client.createRecords(records).compactMap(\.id)
        }
        return ids
    }

    /// Snapshots taken from `@Sendable` callbacks.
    final class Snapshots: Sendable {
        private let state = Locked<(taken: [Snapshot], failures: [String])>(([], []))
        var all: [Snapshot] { state.current.taken }
        var errors: [String] { state.current.failures }

        func take(_ world: CrashWorld, _ label: String) {
            state.withLock { state in
                do {
                    state.taken.append(try world.snapshot(label, index: state.taken.count))
                } catch {
                    state.failures.append("\(label): \(error)")
                }
            }
        }
    }
}

func temporaryFolder(_ prefix: String) -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
}
