import FastJSON
import Foundation
import TestSupport
import Testing

@testable import LocalForce

/// `msync sync` runs named syncs from config files, prints states as JSON, fails on FAILED syncs.
@Suite struct SyncCommandTests {
    static func run(_ arguments: [String]) async throws -> (Int32, String) {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let binary = try #require(
            ["debug", "release"].map { root.appendingPathComponent(".build/\($0)/msync") }
                .first { FileManager.default.isExecutableFile(atPath: $0.path) })
        return try await ChildProcess.run(binary, arguments)
    }

    @Test func syncCommand() async throws {
        let harness = try await SyncHarness()
        defer { Task { await harness.stop() } }
        try await harness.createAccounts(3)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("msync-sync-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let storeConfig = folder.appendingPathComponent("userstore.json")
        let syncs = folder.appendingPathComponent("usersyncs.json")
        try Data(
            #"{"soups":[{"soupName":"accounts","indexes":[{"path":"Id","type":"string"},{"path":"__local__","type":"string"}]}]}"#.utf8
        ).write(to: storeConfig)
        try Data(
            #"""
            {"syncs":[{"syncName":"accounts","syncType":"syncDown","soupName":"accounts","target":{"type":"soql","query":"SELECT Id, Name FROM Account"},"options":{"mergeMode":"OVERWRITE"}},
                      {"syncName":"broken","syncType":"syncDown","soupName":"accounts","target":{"type":"soql","query":"SELECT Id, Bogus__c FROM Account"},"options":{"mergeMode":"OVERWRITE"}}]}
            """#.utf8
        ).write(to: syncs)
        let common = [
            "sync", "--instance-url", harness.baseURL.absoluteString, "--token", SyncHarness.token,
            "--store", folder.appendingPathComponent("store.sqlite").path,
        ]
        let (status, text) = try await Self.run(common + ["--store-config", storeConfig.path, "--syncs", syncs.path, "--json", "accounts"])
        #expect(status == 0, "\(text)")
        let states = try JSONValue(parsing: text.split(separator: "\n").last.map(String.init) ?? "")
        #expect(states.arrayValue?.first?["status"] == "DONE" && states.arrayValue?.first?["totalSize"] == 3)
        let (failedStatus, failedText) = try await Self.run(common + ["--syncs", syncs.path])
        #expect(failedStatus != 0)
        #expect(failedText.contains("broken: FAILED") && failedText.contains("INVALID_FIELD"))
    }
}
