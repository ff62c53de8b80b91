import FastJSON
import Foundation
import MobileSync
import SalesforceREST
import SmartStore
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `msync inspect` driven in a real headless Chromium (Debian's package, installed by
/// scripts/test.sh): the page loads, runs a query, opens records, compares with the org, and
/// shows a sync that another process runs on the store; requests without the token, or addressed
/// to another name than 127.0.0.1 or localhost (DNS rebinding), are refused.
@Suite struct InspectorBrowserTests {
    static let script = Msync.serverPackage.appendingPathComponent("scripts/checks/inspector_browser_check.py")

    @Test func inspectorInABrowser() async throws {
        let binary = try Msync.binary()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("msync-inspect-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = folder.appendingPathComponent("demo")
        let (demoStatus, demo) = try await ChildProcess.run(
            binary, ["demo", "--accounts", "3000", "--keep", data.path], timeout: .seconds(300))
        #expect(demoStatus == 0, "\(demo)")
        let storePath = data.appendingPathComponent("store.sqlite").path

        // The org again, slow enough (every request waits) for the page to see a sync running.
        let serve = try await Background(
            binary,
            [
                "serve", "--port", "0", "--token", "static", "--database", data.appendingPathComponent("org.sqlite").path,
                "--fault-latency-ms", "800",
            ], until: "LocalForce listening on ")
        defer { serve.stop() }
        let orgURL = try #require(
            serve.output.split(separator: "\n").first { $0.hasPrefix("LocalForce listening on ") }?.split(separator: " ").last)
        let org = RestClient(instanceURL: try #require(URL(string: String(orgURL))), tokenProvider: StaticAccessToken("static"))

        // Among the first entries (the page compares entry order): three changed on the server, two
        // deleted there, two edited here, and one whose sync up failed.
        let failedEntry: Int64
        do {
            let store = try SmartStore(path: storePath)
            let first = try await store.query(.all(soup: "accounts", orderPath: "_soupEntryId", pageSize: 10))
            let ids = first.compactMap { $0["Id"]?.stringValue }
            let entryIds = first.compactMap { $0["_soupEntryId"]?.int64Value }
            try #require(ids.count == 10 && entryIds.count == 10)
            // One in conflict: renamed here and on the server, then a LEAVE_IF_CHANGED sync up.
            try await store.updateLocally(["Name": "Changed here"], entryId: entryIds[8], in: "accounts")
            try await Task.sleep(for: .milliseconds(1050))
            try await org.update("Account", id: ids[8], fields: ["Name": "Changed on the server"])
            do {
                let manager = try SyncManager(store: store, client: org)
                let up = try await manager.syncUp(
                    target: CollectionSyncUpTarget(), options: SyncOptions(mergeMode: .leaveIfChanged, fieldlist: ["Name"]),
                    soupName: "accounts")
                #expect(up.conflictCount == 1, "\(up)")
            }
            _ = try await org.updateRecords(
                ids[0..<3].map { ["attributes": ["type": "Account"], "Id": .string($0), "Industry": "Shipping"] })
            _ = try await org.deleteRecords(Array(ids[3..<5]))
            for entryId in entryIds[5..<7] {
                try await store.updateLocally(["Description": "Edited here"], entryId: entryId, in: "accounts")
            }
            var failed = first[7]
            failed["__local__"] = true
            failed["__locally_updated__"] = true
            failed["__last_error__"] = .string(#"[{"errorCode":"FIELD_CUSTOM_VALIDATION_EXCEPTION","message":"Name is too short"}]"#)
            failedEntry = entryIds[7]
            try await store.upsert(failed, in: "accounts")
            try store.close()
        }

        // A second sync, run while the page watches: every Account into a soup of its own.
        try Data(#"{"soups":[{"soupName":"everything","indexes":[{"path":"Id","type":"string"}]}]}"#.utf8)
            .write(to: folder.appendingPathComponent("userstore.json"))
        try Data(
            #"{"syncs":[{"syncName":"everything","syncType":"syncDown","soupName":"everything","target":{"type":"soql","query":"SELECT Id, Name FROM Account"},"options":{"mergeMode":"OVERWRITE"}}]}"#
                .utf8
        ).write(to: folder.appendingPathComponent("usersyncs.json"))
        let syncCommand: JSONValue = .array(
            [
                binary.path, "sync", "--instance-url", String(orgURL), "--token", "static", "--store", storePath,
                "--store-config", folder.appendingPathComponent("userstore.json").path,
                "--syncs", folder.appendingPathComponent("usersyncs.json").path, "everything",
            ].map(JSONValue.string))

        let inspect = try await Background(
            binary, ["inspect", "--store", storePath, "--org", "--instance-url", String(orgURL), "--token", "static"], until: "Inspector: ")
        defer { inspect.stop() }
        let pageURL = try #require(inspect.output.split(separator: "\n").first { $0.hasPrefix("Inspector: ") }?.split(separator: " ").last)
        let base = String(pageURL.prefix { $0 != "?" })

        // Without the token (or with another), nothing is served; the API answers with it.
        for path in ["", "api/soups", "api/record?soup=accounts&id=1"] {
            let (_, refused) = try await URLSession.shared.data(from: try #require(URL(string: base + path)))
            #expect((refused as? HTTPURLResponse)?.statusCode == 401, "\(path)")
        }
        var request = URLRequest(url: try #require(URL(string: base + "api/soups")))
        request.setValue(String(pageURL.split(separator: "=").last ?? ""), forHTTPHeaderField: "X-Inspector-Token")
        let (body, answered) = try await URLSession.shared.data(for: request)
        #expect((answered as? HTTPURLResponse)?.statusCode == 200)
        #expect(try JSONValue(parsing: Array(body))["soups"]?.arrayValue?.contains { $0["name"] == "accounts" } == true)
        // A form-encoded query string: `+` is a space, `%2B` a plus.
        var sum = URLRequest(url: try #require(URL(string: base + "api/query?sql=select+2%2B3+as+n&page=0")))
        sum.setValue(String(pageURL.split(separator: "=").last ?? ""), forHTTPHeaderField: "X-Inspector-Token")
        let (sumBody, summed) = try await URLSession.shared.data(for: sum)
        #expect((summed as? HTTPURLResponse)?.statusCode == 200, "\(String(decoding: sumBody, as: UTF8.self))")
        #expect(try JSONValue(parsing: Array(sumBody))["rows"] == [[5]], "\(String(decoding: sumBody, as: UTF8.self))")

        let shots = ProcessInfo.processInfo.environment["MSYNC_INSPECTOR_SHOTS"] ?? folder.path
        let (status, text) = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["python3", Self.script.path, String(pageURL), shots, String(failedEntry), "everything", syncCommand.jsonString],
            timeout: .seconds(240))
        #expect(status == 0, "\(text)")
        #expect(
            text.contains("browser: loaded, queried, opened a record, showed a conflict, watched a sync, compared with the org"), "\(text)")
        #expect(text.contains("rebinding: the page and the API refuse a name rebound to 127.0.0.1 (403)"), "\(text)")
        // Host headers one by one: only the loopback address and name with the port printed.
        let (hostStatus, hostText) = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", LoginCommandTests.hostCheckScript.path, String(pageURL), "200"],
            timeout: .seconds(60))
        #expect(hostStatus == 0 && hostText.contains("hosts: only 127.0.0.1:"), "\(hostText)")
        for view in ["soups", "query", "record", "org", "syncs", "conflicts", "conflict-record"] {
            #expect(FileManager.default.fileExists(atPath: shots + "/inspector-\(view).png"), "\(view)")
        }
    }
}

/// A child process left running while the test works, with what it printed until `until`.
final class Background: Sendable {
    let output: String
    private let process: RunningChild

    /// Starts the child and waits (off the cooperative pool) until it has printed `marker` and
    /// ended that line, or has exited.
    init(_ executable: URL, _ arguments: [String], until marker: String) async throws {
        let process = try RunningChild(executable, arguments, output: .both)
        var text = ""
        if let output = process.output {
            text = await ChildProcess.read(output) { $0.contains(marker) && $0.hasSuffix("\n") }
        }
        self.process = process
        self.output = text
    }

    /// Ends the child and waits until it has exited.
    func stopped() async {
        process.terminate()
        await process.exited()
    }

    /// Ends the child without waiting (for a `defer`); it is reaped on a Dispatch thread.
    func stop() { process.end() }
}
