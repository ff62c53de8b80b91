import FastJSON
import Foundation
import SmartStore
import TestSupport
import Testing

/// Looking around after the demo: `demo --keep`, `msync soups`, `msync syncs`, and `msync query`
/// as a table, JSON lines or CSV.
@Suite struct InspectCommandTests {
    @Test func demoKeepsWhatTheInspectCommandsRead() async throws {
        let (folder, store, text) = try await Self.keptDemo(accounts: 120)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(text.contains("msync soups --store \(store)"))
        #expect(text.contains("msync serve --database \(folder.appendingPathComponent("org.sqlite").path)"))
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("org.sqlite").path))

        // A kept directory is never reused: the demo would mix two orgs.
        let (again, refusal) = try await Msync.run(["demo", "--accounts", "120", "--keep", folder.path])
        #expect(again != 0 && refusal.contains("--keep needs a new or empty directory"), "\(refusal)")

        let (soupsStatus, soups) = try await Msync.run(["soups", "--store", store, "--format", "json"])
        #expect(soupsStatus == 0, "\(soups)")
        let soupRows = try Self.jsonLines(soups)
        let accounts = try #require(soupRows.first { $0["soup"] == "accounts" })
        #expect(accounts["entries"] == 115) // 120 seeded + 5 created − 3 deleted − 7 ghosts
        #expect(accounts["indexSpecs"]?.stringValue?.contains("Name:full_text") == true)
        #expect(soupRows.contains { $0["soup"] == "syncs_soup" })

        let (syncsStatus, syncs) = try await Msync.run(["syncs", "--store", store, "--format", "csv"])
        #expect(syncsStatus == 0, "\(syncs)")
        let lines = syncs.split(separator: "\r\n").map(String.init)
        #expect(lines.first == "id,name,type,target,soup,status,progress,maxTimeStamp,failed,conflicts,error")
        #expect(lines.contains { $0.contains(",accounts,syncDown,\"soql: SELECT Id, Name, Industry") && $0.contains(",DONE,") })
        #expect(lines.contains { $0.contains(",accounts-up,syncUp,") && $0.contains(",DONE,100% of ") })

        let query = "select {accounts:Name}, {accounts:Industry} from {accounts} order by {accounts:Name} limit 3"
        let (tableStatus, table) = try await Msync.run(["query", "--store", store, "--format", "table", query])
        #expect(tableStatus == 0, "\(table)")
        let tableLines = table.split(separator: "\n").map(String.init)
        #expect(tableLines.first?.hasPrefix("Name") == true && tableLines.first?.hasSuffix("Industry") == true, "\(table)")
        #expect(tableLines.last == "(3 rows)")
        // Piped without --format: JSON lines keyed by the paths.
        let (_, piped) = try await Msync.run(["query", "--store", store, query])
        let rows = try Self.jsonLines(piped)
        #expect(rows.count == 3 && rows.allSatisfy { $0["Name"]?.stringValue != nil && $0["Industry"] != nil })
    }

    @Test func csvFieldsAreQuotedAndTableCellsCut() async throws {
        let (folder, store, _) = try await Self.keptDemo(accounts: 60)
        defer { try? FileManager.default.removeItem(at: folder) }
        let query = #"select 'a "quoted", value' as q, 'line' || char(10) || 'break' as l, {accounts:_soupEntryId} from {accounts} limit 1"#
        let (_, csv) = try await Msync.run(["query", "--store", store, "--format", "csv", query])
        // An entry id's column goes by its path, not SQLite's "id" (an alias would name it).
        #expect(csv.hasPrefix("q,l,_soupEntryId\r\n\"a \"\"quoted\"\", value\",\"line\nbreak\","), "\(csv)")
        let crlf = "select 'a' || char(13) || char(10) || 'b' as t, 'e' || char(27) || '[2J' as esc from {accounts} limit 1"
        let (_, crlfCSV) = try await Msync.run(["query", "--store", store, "--format", "csv", crlf])
        #expect(crlfCSV == "t,esc\r\n\"a\r\nb\",e\u{1B}[2J\r\n", "\(crlfCSV.debugDescription)")
        // A terminal never gets the data's control characters: they show as their symbols.
        let (_, crlfTable) = try await Msync.run(["query", "--store", store, "--format", "table", crlf])
        #expect(crlfTable.contains("a\u{240D}\u{240A}b") && crlfTable.contains("e\u{241B}[2J") && !crlfTable.contains("\u{1B}"))
        // Repeated column names stay apart, in column order.
        let twice = "select {accounts:Name}, {accounts:Name}, {accounts:Industry} from {accounts} limit 1"
        let (_, twiceJSON) = try await Msync.run(["query", "--store", store, "--format", "json", twice])
        #expect(twiceJSON.hasPrefix(#"{"Name":"#) && twiceJSON.contains(#","Name:1":"#) && twiceJSON.contains(#","Industry":"#))
        let long = "select '" + String(repeating: "x", count: 200) + "' as wide from {accounts} limit 1"
        let (_, table) = try await Msync.run(["query", "--store", store, "--format", "table", long])
        let cell = try #require(table.split(separator: "\n").dropFirst(2).first)
        #expect(cell.count == 60 && cell.hasSuffix("…"))
        let (_, bad) = try await Msync.run(["query", "--store", store, "--format", "yaml", "select 1"])
        #expect(bad.contains("yaml"))
    }

    /// On a terminal (a pseudo-terminal from util-linux's `script`), a progress line is erased
    /// before it is drawn again, so a shorter line leaves nothing behind.
    @Test func progressLinesAreErasedOnATerminal() async throws {
        let binary = try Msync.binary()
        let (status, text) = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/script"), ["-qec", "\(binary.path) demo --accounts 60", "/dev/null"], timeout: .seconds(120))
        #expect(status == 0, "\(text)")
        #expect(text.contains("\r\u{1B}[2Ksync down accounts "), "\(text.debugDescription.prefix(600))")
        #expect(text.contains("round trip complete"))
    }

    /// Help paragraphs are not broken by hand (ArgumentParser wraps them to the terminal), and
    /// ArgumentParser writes the shell completions docs/msync.md installs.
    @Test func helpWrapsAndCompletionsAreGenerated() async throws {
        let binary = try Msync.binary()
        let wide = ProcessInfo.processInfo.environment.merging(["COLUMNS": "400"]) { $1 }
        let (_, help) = try await ChildProcess.run(binary, ["sync", "--help"], environment: wide)
        #expect(help.contains("syncs from --syncs (usersyncs.json format; existing names are kept). Each sync runs as a reSync"), "\(help)")
        let (_, demoHelp) = try await ChildProcess.run(binary, ["demo", "--help"], environment: wide)
        #expect(demoHelp.contains("opens a fresh store, then: sync down"), "\(demoHelp)")
        for shell in ["bash", "zsh", "fish"] {
            let (status, script) = try await ChildProcess.run(binary, ["--generate-completion-script", shell])
            #expect(status == 0 && script.contains("inspect") && script.contains("soups") && script.contains("store"), "\(shell)")
        }
    }

    /// `msync demo --keep` into a new folder (the caller removes it): the folder, its store and
    /// `inspect --org` with an org that does not answer, or refuses the token, says so and still
    /// serves the store.
    @Test func anUnreachableOrgIsAWarning() async throws {
        // The org is a process of its own (`msync serve`): msync's probe then never waits on this
        // test process's threads, which the loaded full suite keeps busy.
        let (serving, banner) = try await LoginCommandTests.serve([])
        defer { serving.end() }
        let org = try LoginCommandTests.address(banner).absoluteString
        let folder = try Msync.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appendingPathComponent("store.sqlite").path
        try SmartStore(path: store).close()
        let binary = try Msync.binary()
        let cases = [
            ("http://127.0.0.1:1", "t", "warning: the org at http://127.0.0.1:1 did not answer ("),
            (org, "wrong", "refused the token given with --token (INVALID_SESSION_ID)"),
        ]
        for (org, token, warning) in cases {
            let inspect = try await Background(
                binary, ["inspect", "--store", store, "--org", "--instance-url", org, "--token", token], until: "Inspector: ")
            defer { inspect.stop() }
            #expect(inspect.output.contains(warning) && inspect.output.contains("comparing with the org fails"), "\(inspect.output)")
            #expect(inspect.output.contains("Inspector: http://127.0.0.1:"), "\(inspect.output)")
        }
        let fine = try await Background(
            binary, ["inspect", "--store", store, "--org", "--instance-url", org, "--token", "static"],
            until: "Inspector: ")
        defer { fine.stop() }
        #expect(!fine.output.contains("warning"), "\(fine.output)")
    }

    /// what the demo printed.
    static func keptDemo(accounts: Int) async throws -> (folder: URL, store: String, output: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("msync-keep-\(UUID().uuidString)")
        let (status, text) = try await Msync.run(["demo", "--accounts", String(accounts), "--keep", folder.path])
        try #require(status == 0, "\(text)")
        return (folder, folder.appendingPathComponent("store.sqlite").path, text)
    }

    static func jsonLines(_ text: String) throws -> [JSONValue] {
        try text.split(separator: "\n").filter { $0.hasPrefix("{") }.map { try JSONValue(parsing: String($0)) }
    }
}
