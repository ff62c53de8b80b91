import ArgumentParser
import FastJSON
import Foundation
import MobileSync
import SalesforceREST
import SmartStore

/// `msync sync`: runs named syncs from a `usersyncs.json` against a server.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Run named syncs (all of them, in file order, when none are named) and report their states.",
        discussion: """
            Soups come from --store-config (userstore.json format; existing soups are kept), syncs from \
            --syncs (usersyncs.json format; existing names are kept). Each sync runs as a reSync, so a \
            sync down only fetches what changed since its last run. Without --token, the login saved by \
            msync login is used (and renewed when it expires).

            Example:
              msync sync --instance-url http://127.0.0.1:8080 --token secret --store app.sqlite \\
                         --store-config userstore.json --syncs usersyncs.json accounts contacts
            """
    )

    @OptionGroup(title: "Server")
    var server: ServerOptions

    @Option(help: "Store file.")
    var store: String

    @Option(help: "userstore.json with the soups to register.")
    var storeConfig: String?

    @Option(help: "usersyncs.json with the syncs to create.")
    var syncs: String?

    @OptionGroup(title: "Encryption")
    var encryption: StoreKeyOptions

    @Flag(help: "Print the final sync states as JSON.")
    var json = false

    @Option(
        name: .customLong("wait"),
        help: "Seconds a sync waits while another process syncs one of its soups (0: fail at once).")
    var waitSeconds: Int = 60

    @Flag(
        help: """
            Then keep the SOQL sync downs live: server changes reach the store as they commit (one line \
            each; JSON lines with --json), until Ctrl-C.
            """)
    var live = false

    @Option(help: "With --live, on a server without the Streaming API: seconds between resyncs.")
    var pollInterval: Int = 30

    @Argument(help: "Sync names to run (default: every sync of --syncs, in file order).")
    var names: [String] = []

    func validate() throws {
        if names.isEmpty && syncs == nil { throw ValidationError("name the syncs to run, or give --syncs") }
        if !(0...86_400).contains(waitSeconds) { throw ValidationError("--wait takes 0 to 86400 seconds") }
        if !(1...86_400).contains(pollInterval) { throw ValidationError("--poll-interval takes 1 to 86400 seconds") }
        try InputFile.check(storeConfig, option: "--store-config")
        try InputFile.check(syncs, option: "--syncs")
    }

    func run() async throws {
        // Every input is read and checked before the store is opened, so that a bad file or a
        // missing login leaves no new store behind.
        let soupsConfig = try storeConfig.map { try StoreConfig(contentsOf: URL(fileURLWithPath: $0)) }
        let syncsConfig = try syncs.map { try SyncsConfig(contentsOf: URL(fileURLWithPath: $0)) }
        let client = try await server.client()
        try await server.checkToken(client)
        let smartStore = try encryption.open(store, readOnly: false)
        // Closed at the end, which empties the write-ahead log into the file: the store is one file.
        defer { try? smartStore.close() }
        if let soupsConfig {
            for rejection in soupsConfig.rejected {
                let soup = rejection.soupName ?? "soups[\(rejection.position)]"
                FileHandle.standardError.write(Data("soup \(soup) not registered: \(rejection.reason)\n".utf8))
            }
            try smartStore.apply(soupsConfig)
        }
        let manager = try SyncManager(
            store: smartStore, client: client, otherProcesses: waitSeconds == 0 ? .fail : .wait(timeout: .seconds(waitSeconds)))
        let (order, rejected) = try await syncsToRun(manager, config: syncsConfig)
        let printer = ProgressPrinter()
        // Ctrl-C or SIGTERM: the running sync stops the documented way (STOPPED, resumed by the
        // next run) and no further sync starts; a second Ctrl-C ends the process at once.
        let interruption = await Interruption(printer: printer) { await manager.stop() }
        defer { interruption.cancel() }
        var results: [SyncState] = []
        for name in order where interruption.signal == nil {
            let state: SyncState
            do {
                state = try await manager.reSync(named: name) { state in if !json { printer.update(name, state) } }
            } catch SyncError.managerStopped where interruption.signal != nil {
                break // interrupted between two syncs
            }
            results.append(state)
            if !json && state.status == .failed { printer.line("\(name): FAILED: \(state.error)") }
        }
        printer.endLine()
        if live && interruption.signal == nil && !results.contains(where: { $0.status == .failed }) {
            try await followLive(order, manager: manager, printer: printer, interruption: interruption)
        }
        if json { FileHandle.standardOutput.write(Data((JSONValue.array(results.map(Self.json)).jsonString + "\n").utf8)) }
        if let code = interruption.exitCode {
            FileHandle.standardError.write(Data("interrupted: stopped; the next msync sync resumes\n".utf8))
            throw ExitCode(code)
        }
        // Non-zero when anything asked for did not happen: a rejected config entry, a failed sync,
        // or nothing run at all.
        if results.isEmpty { FileHandle.standardError.write(Data("no sync ran\n".utf8)) }
        if rejected > 0 || results.isEmpty || results.contains(where: { $0.status == .failed }) { throw ExitCode(1) }
    }

    /// The syncs to run, in order (those named, else every entry of `--syncs` created), and how
    /// many of the asked-for entries of `--syncs` were refused (each said on stderr).
    private func syncsToRun(_ manager: SyncManager, config: SyncsConfig?) async throws -> (names: [String], rejected: Int) {
        guard let config else { return (names, 0) }
        let report = try await manager.apply(config)
        for (name, error) in report.errors { FileHandle.standardError.write(Data("sync \(name) not created: \(error)\n".utf8)) }
        let rejected = report.errors.filter { names.isEmpty || names.contains($0.name) }.count
        guard names.isEmpty else { return (names, rejected) }
        return (config.entries.map(\.name).filter { !report.errors.map(\.name).contains($0) }, rejected)
    }

    /// A sync's state as `msync syncs` prints it: an ISO 8601 date (null before the first run),
    /// null for no error.
    private static func json(_ state: SyncState) -> JSONValue {
        [
            "id": .int(state.id), "name": state.name.map(JSONValue.string) ?? .null, "type": .string(state.kind.rawValue),
            "status": .string(state.status.rawValue), "progress": .int(Int64(state.progress)),
            "totalSize": .int(Int64(state.totalSize)),
            "maxTimeStamp": state.maxTimeStamp < 0 ? .null : .string(SyncsCommand.date(state.maxTimeStamp)),
            "failedRecordCount": .int(Int64(state.failedRecordCount)),
            "error": state.error.isEmpty ? .null : .string(state.error),
        ]
    }

    /// Runs the SOQL sync downs among `names` live, printing each change and status, until a signal.
    private func followLive(_ names: [String], manager: SyncManager, printer: ProgressPrinter, interruption: Interruption) async throws {
        let changes = await manager.liveChanges()
        let updates = await manager.updates()
        var started: [String] = []
        let options = LiveSyncOptions(pollInterval: .seconds(pollInterval))
        for name in names {
            guard let sync = try await manager.syncStatus(named: name), sync.kind == .syncDown else { continue }
            do {
                try await manager.startLiveSync(named: name, options: options)
                started.append(name)
            } catch SyncError.invalidTarget {
                continue // not a SOQL sync down
            }
        }
        guard !started.isEmpty else {
            FileHandle.standardError.write(Data("--live: none of these syncs is a SOQL sync down\n".utf8))
            throw ExitCode(1)
        }
        if !json { printer.line("live: \(started.joined(separator: ", ")) (Ctrl-C to stop)") }
        let json = self.json
        let printing = Task {
            for await change in changes {
                printer.line(json ? LiveOutput.json(change) : LiveOutput.line(change))
            }
        }
        let statuses = Task {
            var last: [String: LiveStatus] = [:]
            for await state in updates {
                guard let name = state.name, started.contains(name), let info = state.live, last[name] != info.status else { continue }
                last[name] = info.status
                printer.line(json ? LiveOutput.json(name, info) : LiveOutput.line(name, info))
            }
        }
        while interruption.signal == nil { try? await Task.sleep(for: .milliseconds(100)) }
        printing.cancel()
        statuses.cancel()
    }
}
