import FastJSON
import Foundation
import MobileSync
import SmartStore
import TestLocking
import TestSupport
import Testing

@testable import LocalForce

/// What `msync sync` prints, through a pipe: progress as it happens, one line for a refused
/// token, and final states in `msync syncs`'s form.
@Suite struct SyncCommandOutputTests {
    static func arguments(_ harness: CommandLineOrg, store: String, token: String = CommandLineOrg.token) throws -> (URL, [String]) {
        try arguments(org: harness.baseURL, store: store, token: token)
    }

    /// A config folder with a sync down and a sync up, and the arguments of an `msync sync` of them.
    static func arguments(org: URL, store: String, token: String) throws -> (URL, [String]) {
        let (folder, storeConfig, syncs) = try SyncCommandTests.configFolder("msync-output")
        try Data(
            #"""
            {"syncs":[{"syncName":"down","syncType":"syncDown","soupName":"accounts","target":{"type":"soql","query":"SELECT Id, Name FROM Account"},"options":{"mergeMode":"OVERWRITE"}},
                      {"syncName":"up","syncType":"syncUp","soupName":"accounts","target":{},"options":{"fieldlist":["Name"],"mergeMode":"OVERWRITE"}}]}
            """#.utf8
        ).write(to: syncs)
        let arguments = [
            "sync", "--instance-url", org.absoluteString, "--token", token, "--store",
            folder.appendingPathComponent(store).path,
            "--store-config", storeConfig.path, "--syncs", syncs.path,
        ]
        return (folder, arguments)
    }

    @Test func progressReachesAPipeAsItHappens() async throws {
        let harness = try await CommandLineOrg()
        defer { Task { await harness.stop() } }
        try await harness.createAccounts(2500) // two pages of a SOQL answer
        let (folder, arguments) = try Self.arguments(harness, store: "store.sqlite")
        defer { try? FileManager.default.removeItem(at: folder) }
        await harness.localForce.faults.configure(rate: 0, latency: .milliseconds(700))
        let process = try RunningChild(try Msync.binary(), arguments + ["down"], output: .both)
        let output = try #require(process.output)
        // The line came through the pipe while the sync still had its second page to fetch
        // (seen on the reading thread, the moment it arrives: this test's own threads may be
        // busy for longer than the 700 ms that page takes).
        let runningWhenSeen = Locked(false)
        let first = await ChildProcess.read(output) { text in
            guard text.contains("down: RUNNING 0% of 2500\n") else { return false }
            // Buffered output would arrive all at once, at the end, with DONE.
            runningWhenSeen.withLock { $0 = process.isRunning && !text.contains("down: DONE") }
            return true
        }
        #expect(runningWhenSeen.withLock { $0 }, "\(first)")
        let rest = await ChildProcess.read(output) { _ in false }
        await process.exited()
        #expect(process.terminationStatus == 0, "\(first)\(rest)")
        #expect((first + rest).contains("down: DONE 100% of 2500"), "\(first)\(rest)")
    }

    @Test func aRefusedStaticTokenFailsAtOnceWithOneLine() async throws {
        // The org is a process of its own (`msync serve`): msync's probe then never waits on this
        // test process's threads, which the loaded full suite keeps busy.
        let (serving, banner) = try await LoginCommandTests.serve([])
        defer { serving.end() }
        let org = try LoginCommandTests.address(banner)
        let (folder, arguments) = try Self.arguments(org: org, store: "store.sqlite", token: "not-the-token")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (status, output) = try await Msync.run(arguments + ["up"])
        #expect(status == 1, "\(output)")
        #expect(
            output
                == "Error: \(org.absoluteString) refused the token given with --token (INVALID_SESSION_ID): give a current session id, or log in with msync login\n"
        )
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("store.sqlite").path), "no store is left behind")
    }

    @Test func jsonStatesAreWrittenAsMsyncSyncsWritesThem() async throws {
        let harness = try await CommandLineOrg()
        defer { Task { await harness.stop() } }
        try await harness.createAccounts(3)
        let (folder, arguments) = try Self.arguments(harness, store: "store.sqlite")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (status, output) = try await Msync.run(arguments + ["--json", "down", "up"])
        #expect(status == 0, "\(output)")
        let states = try #require(try JSONValue(parsing: output.split(separator: "\n").last.map(String.init) ?? "").arrayValue)
        let (_, listed) = try await Msync.run([
            "syncs", "--store", folder.appendingPathComponent("store.sqlite").path, "--format", "json",
        ])
        let rows = try listed.split(separator: "\n").map { try JSONValue(parsing: String($0)) }
        for name in ["down", "up"] {
            let state = try #require(states.first { $0["name"]?.stringValue == name })
            let row = try #require(rows.first { $0["name"]?.stringValue == name })
            #expect(state["maxTimeStamp"] == row["maxTimeStamp"], "\(state) \(row)")
            #expect(state["error"] == .null && row["error"] == .null)
        }
        let down = try #require(states.first { $0["name"] == "down" }?["maxTimeStamp"]?.stringValue)
        let iso = ISO8601DateFormatter()
        iso.formatOptions.insert(.withFractionalSeconds)
        #expect(iso.date(from: down) != nil, "\(down)")
        #expect(states.first { $0["name"] == "up" }?["maxTimeStamp"] == .null)
    }
}
