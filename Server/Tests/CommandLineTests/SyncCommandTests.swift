import FastJSON
import Foundation
import MobileSync
import SmartStore
import TestSupport
import Testing

@testable import LocalForce

/// `msync sync` runs named syncs from config files, prints states as JSON, fails on FAILED syncs.
@Suite struct SyncCommandTests {
    /// A new folder with a `userstore.json` of an `accounts` soup; returns it, that file and
    /// where the test writes its `usersyncs.json`.
    static func configFolder(_ prefix: String) throws -> (folder: URL, storeConfig: URL, syncs: URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let storeConfig = folder.appendingPathComponent("userstore.json")
        try Data(
            #"{"soups":[{"soupName":"accounts","indexes":[{"path":"Id","type":"string"},{"path":"__local__","type":"string"}]}]}"#.utf8
        ).write(to: storeConfig)
        return (folder, storeConfig, folder.appendingPathComponent("usersyncs.json"))
    }

    @Test func syncCommand() async throws {
        let harness = try await CommandLineOrg()
        defer { Task { await harness.stop() } }
        try await harness.createAccounts(3)
        let (folder, storeConfig, syncs) = try Self.configFolder("msync-sync")
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(
            #"""
            {"syncs":[{"syncName":"accounts","syncType":"syncDown","soupName":"accounts","target":{"type":"soql","query":"SELECT Id, Name FROM Account"},"options":{"mergeMode":"OVERWRITE"}},
                      {"syncName":"broken","syncType":"syncDown","soupName":"accounts","target":{"type":"soql","query":"SELECT Id, Bogus__c FROM Account"},"options":{"mergeMode":"OVERWRITE"}}]}
            """#.utf8
        ).write(to: syncs)
        let common = [
            "sync", "--instance-url", harness.baseURL.absoluteString, "--token", CommandLineOrg.token,
            "--store", folder.appendingPathComponent("store.sqlite").path,
        ]
        let (status, text) = try await Msync.run(
            common + ["--store-config", storeConfig.path, "--syncs", syncs.path, "--json", "accounts"])
        #expect(status == 0, "\(text)")
        let states = try JSONValue(parsing: text.split(separator: "\n").last.map(String.init) ?? "")
        #expect(states.arrayValue?.first?["status"] == "DONE" && states.arrayValue?.first?["totalSize"] == 3)
        let (failedStatus, failedText) = try await Msync.run(common + ["--syncs", syncs.path])
        #expect(failedStatus != 0)
        #expect(failedText.contains("broken: FAILED") && failedText.contains("INVALID_FIELD"))
    }

    /// Runs `arguments` of msync on a pseudo-terminal, types Ctrl-C once the output contains
    /// `interruptAfter` (twice when `twice`), and returns the exit status and what the
    /// terminal showed.
    static func runOnATerminal(_ arguments: [String], interruptAfter marker: String, twice: Bool = false) async throws -> (Int32, String) {
        let binary = try Msync.binary()
        let script = """
            import os, pty, select, sys, time
            marker, twice, argv = sys.argv[1].encode(), sys.argv[2] == "1", sys.argv[3:]
            pid, fd = pty.fork()
            if pid == 0:
                os.execv(argv[0], argv)
            out, sent, deadline = b"", 0, time.time() + 120
            while time.time() < deadline:
                ready, _, _ = select.select([fd], [], [], 0.05)
                if ready:
                    try:
                        data = os.read(fd, 65536)
                    except OSError:
                        break
                    if not data:
                        break
                    out += data
                if sent == 0 and marker in out:
                    os.write(fd, b"\\x03")
                    sent = 1
                elif sent == 1 and twice:
                    time.sleep(0.05)
                    os.write(fd, b"\\x03")
                    sent = 2
            else:
                os.kill(pid, 9)
            _, status = os.waitpid(pid, 0)
            sys.stdout.buffer.write(out)
            print("\\nEXIT %d" % os.waitstatus_to_exitcode(status))
            """
        let (_, output) = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, marker, twice ? "1" : "0", binary.path] + arguments,
            timeout: .seconds(180))
        let status = output.components(separatedBy: "\nEXIT ").last.flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        return (status ?? -1, output.components(separatedBy: "\nEXIT ").dropLast().joined(separator: "\nEXIT "))
    }

    /// An org of `accounts` accounts answering each request after 150 ms, a new folder, and the
    /// arguments of an `msync sync` of them (pages of 200, OVERWRITE) into a store there.
    static func slowSync(_ accounts: Int, _ prefix: String) async throws
        -> (org: CommandLineOrg, folder: URL, store: String, arguments: [String])
    {
        let org = try await CommandLineOrg()
        let (folder, storeConfig, syncs): (URL, URL, URL)
        do {
            try await org.createAccounts(accounts)
            (folder, storeConfig, syncs) = try Self.configFolder(prefix)
        } catch {
            await org.stop()
            throw error
        }
        await org.localForce.faults.configure(rate: 0, latency: .milliseconds(150))
        try Data(
            #"""
            {"syncs":[{"syncName":"accounts","syncType":"syncDown","soupName":"accounts","target":{"type":"soql","query":"SELECT Id, Name, LastModifiedDate FROM Account","maxBatchSize":200},"options":{"mergeMode":"OVERWRITE"}}]}
            """#.utf8
        ).write(to: syncs)
        let store = folder.appendingPathComponent("store.sqlite").path
        let arguments = [
            "sync", "--instance-url", org.baseURL.absoluteString, "--token", CommandLineOrg.token, "--store", store,
            "--store-config", storeConfig.path, "--syncs", syncs.path,
        ]
        return (org, folder, store, arguments)
    }

    /// Ctrl-C during `msync sync` on a terminal: the sync ends STOPPED, the progress line is
    /// ended, the exit status is 130; the next run resumes it. A second Ctrl-C ends it at once.
    @Test func ctrlCStopsTheSync() async throws {
        let (harness, folder, store, arguments) = try await Self.slowSync(3000, "msync-sigint")
        defer { Task { await harness.stop() } }
        defer { try? FileManager.default.removeItem(at: folder) }
        let (status, screen) = try await Self.runOnATerminal(arguments, interruptAfter: "13% of 3000")
        #expect(status == 130, "\(screen)")
        // The bar was redrawn in place and ended STOPPED, on a line of its own.
        let lastBar = try #require(screen.components(separatedBy: "\r").last { $0.contains("accounts ") })
        #expect(lastBar.contains("[STOPPED]") && lastBar.contains("\n"), "\(screen.suffix(300))")
        let stopped = try #require(try SyncManager.syncStates(in: SmartStore(readOnlyAt: store)).first)
        #expect(stopped.status == .stopped && stopped.progress < 100 && stopped.maxTimeStamp > 0, "\(stopped)")
        // The next run resumes at the boundary and completes.
        await harness.localForce.faults.configure(rate: 0, latency: .zero)
        let (again, text) = try await Msync.run(arguments + ["--json"])
        #expect(again == 0, "\(text)")
        let resumed = try SmartStore(readOnlyAt: store)
        #expect(try await resumed.count(.all(soup: "accounts", pageSize: 1)) == 3000)
        // A second Ctrl-C does not wait for the sync to stop.
        await harness.localForce.faults.configure(rate: 0, latency: .seconds(5))
        let (killed, _) = try await Self.runOnATerminal(arguments, interruptAfter: "RUNNING", twice: true)
        #expect(killed == 130)
    }

    /// SIGTERM (not a terminal: plain lines) stops the sync the same way and exits 143.
    @Test func sigtermStopsTheSync() async throws {
        let (harness, folder, store, arguments) = try await Self.slowSync(2000, "msync-sigterm")
        defer { Task { await harness.stop() } }
        defer { try? FileManager.default.removeItem(at: folder) }
        let process = try RunningChild(try Msync.binary(), arguments, output: .both)
        let output = try #require(process.output)
        // SIGTERM from the reading thread, as soon as progress shows: this test's own threads may
        // be busy for longer than the rest of the sync takes.
        let seen = await ChildProcess.read(output) { text in
            guard text.contains("% of 2000") else { return false }
            process.terminate()
            return true
        }
        #expect(seen.contains("accounts: RUNNING"), "\(seen)")
        let rest = await ChildProcess.read(output) { _ in false }
        await process.exited()
        #expect(process.terminationStatus == 143, "\(seen)\(rest)")
        #expect(rest.contains("accounts: STOPPED") && rest.contains("interrupted"), "\(rest)")
        let stopped = try #require(try SyncManager.syncStates(in: SmartStore(readOnlyAt: store)).first)
        #expect(stopped.status == .stopped)
    }

    /// `msync sync --live`: runs the syncs, then prints each server change as it reaches the
    /// store, one line each, until SIGINT (exit 130, the live sync STOPPED, its replay id kept).
    @Test func liveSyncPrintsEachChangeUntilInterrupted() async throws {
        let harness = try await CommandLineOrg()
        defer { Task { await harness.stop() } }
        let ids = try await harness.createAccounts(2)
        let (folder, storeConfig, syncs) = try Self.configFolder("msync-live")
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(
            #"""
            {"syncs":[{"syncName":"accounts","syncType":"syncDown","soupName":"accounts","target":{"type":"soql","query":"SELECT Id, Name, LastModifiedDate FROM Account"},"options":{"mergeMode":"LEAVE_IF_CHANGED","live":true}}]}
            """#.utf8
        ).write(to: syncs)
        let store = folder.appendingPathComponent("store.sqlite").path
        let process = try RunningChild(
            try Msync.binary(),
            [
                "sync", "--instance-url", harness.baseURL.absoluteString, "--token", CommandLineOrg.token, "--store", store,
                "--store-config", storeConfig.path, "--syncs", syncs.path, "--live",
            ], output: .both)
        let output = try #require(process.output)
        // A live msync runs until interrupted: if what the test waits for never comes, the
        // watchdog ends it (and the test fails on what it printed) instead of hanging.
        let watchdog = Task {
            try await Task.sleep(for: .seconds(180))
            process.kill()
        }
        defer { watchdog.cancel() }
        let started = await ChildProcess.read(output) { $0.contains("accounts: LIVE") }
        #expect(started.contains("live: accounts (Ctrl-C to stop)"), "\(started)")
        try await harness.client.update("Account", id: ids[0], fields: ["Name": "Changed on the server"])
        let changed = await ChildProcess.read(output) { $0.contains("applied") }
        #expect(changed.contains("accounts: UPDATE \(ids[0]) (Name, LastModifiedDate) applied"), "\(changed)")
        process.interrupt()
        let rest = await ChildProcess.read(output) { _ in false }
        await process.exited()
        #expect(process.terminationStatus == 130, "\(started)\(changed)\(rest)")
        let state = try #require(try SyncManager.syncStates(in: SmartStore(readOnlyAt: store)).first)
        #expect(state.live?.status == .stopped)
        #expect(state.live?.replayId != nil)
        let local = try await SmartStore(readOnlyAt: store).query(.exact(soup: "accounts", path: "Id", key: .string(ids[0]), pageSize: 1))
        #expect(local.first?["Name"] == "Changed on the server")
    }
}
