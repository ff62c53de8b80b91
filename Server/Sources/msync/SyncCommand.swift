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

            What a sync left unsent (records the server refused, records in conflict) is printed \
            after it, and listed in --json's "left". Exit codes: 0 all done; 1 a sync failed, an \
            entry of --syncs was refused, or nothing ran; 3 the syncs ran but left records unsent; \
            130 (143) interrupted by Ctrl-C (SIGTERM).

            Example:
              msync sync --instance-url http://127.0.0.1:8080 --token secret \\
                --store app.sqlite --store-config userstore.json \\
                --syncs usersyncs.json accounts contacts
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

    @Flag(
        help: """
            Give existing syncs the definitions --syncs has for them (target, soup, options); a new \
            target or soup starts the sync afresh. Without it, existing syncs keep theirs.
            """)
    var replaceDefinitions = false

    @Option(
        name: .customLong("wait"),
        help: "Seconds a sync waits while another process syncs one of its soups (0: fail at once).")
    var waitSeconds: Int = 60

    @Option(
        help: ArgumentHelp(
            "Seconds after it was sent that a create whose answer was lost may still land: until then it is held back, not sent again.",
            valueName: "seconds"))
    var lostCreateWait: Int = 600

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
        if !(0...86_400).contains(lostCreateWait) { throw ValidationError("--lost-create-wait takes 0 to 86400 seconds") }
        if !(1...86_400).contains(pollInterval) { throw ValidationError("--poll-interval takes 1 to 86400 seconds") }
        try InputFile.check(storeConfig, option: "--store-config")
        try InputFile.check(syncs, option: "--syncs")
    }

    func run() async throws {
        // Every input is read and checked before the store is opened, so that a bad file or a
        // missing login leaves no new store behind.
        let soupsConfig = try storeConfig.map { try StoreConfig(contentsOf: URL(fileURLWithPath: $0)) }
        let syncsConfig = try syncs.map { try SyncsConfig(contentsOf: URL(fileURLWithPath: $0)) }
        try SyncInputs.check(
            store: store, encryption: encryption, soups: soupsConfig, syncs: syncsConfig, names: names, waits: waitSeconds > 0)
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
            store: smartStore, client: client, otherProcesses: waitSeconds == 0 ? .fail : .wait(timeout: .seconds(waitSeconds)),
            lostCreateWait: .seconds(lostCreateWait))
        let (order, rejected) = try await syncsToRun(manager, config: syncsConfig)
        if live { try await Self.checkLive(order, manager: manager) }
        let printer = ProgressPrinter()
        // Ctrl-C or SIGTERM: the running sync stops the documented way (STOPPED, resumed by the
        // next run) and no further sync starts; a second Ctrl-C ends the process at once.
        let interruption = await Interruption(printer: printer) { manager.stop() }
        defer { interruption.cancel() }
        let results = try await runSyncs(order, manager: manager, store: smartStore, printer: printer, interruption: interruption)
        printer.endLine()
        if live && interruption.signal == nil && !results.contains(where: { $0.state.status == .failed }) {
            try await followLive(order, manager: manager, printer: printer, interruption: interruption)
        }
        if json {
            let open = try await SyncsCommand.openConflicts(in: smartStore, of: results.map(\.state))
            let states = JSONValue.array(results.map { Self.json($0, openConflicts: open) })
            FileHandle.standardOutput.write(Data((states.sortedJSONString + "\n").utf8))
        }
        if let code = interruption.exitCode {
            FileHandle.standardError.write(Data("interrupted: stopped; the next msync sync resumes\n".utf8))
            throw ExitCode(code)
        }
        // Non-zero when anything asked for did not happen: 1 for a rejected config entry, a
        // failed sync, or nothing run at all; 3 when the syncs ran but left records unsent.
        if results.isEmpty { FileHandle.standardError.write(Data("no sync ran\n".utf8)) }
        if rejected > 0 || results.isEmpty || results.contains(where: { $0.state.status == .failed }) { throw ExitCode(1) }
        if results.contains(where: { $0.state.failedRecordCount > 0 || $0.state.conflictCount > 0 }) {
            throw ExitCode(SyncLeftovers.exitCode)
        }
    }

    /// Runs the syncs in order until one is interrupted, printing each one's progress and what
    /// it left unsent (unless --json).
    private func runSyncs(
        _ order: [String], manager: SyncManager, store smartStore: SmartStore, printer: ProgressPrinter, interruption: Interruption
    ) async throws -> [(state: SyncState, left: SyncLeftovers)] {
        var results: [(state: SyncState, left: SyncLeftovers)] = []
        let waiting = "another process is syncing its soup; waiting up to \(waitSeconds) s (--wait)"
        for name in order where interruption.signal == nil {
            let state: SyncState
            do {
                state = try await manager.reSync(named: name) { state in if !json { printer.update(name, state, waiting: waiting) } }
            } catch SyncError.managerStopped where interruption.signal != nil {
                break // interrupted between two syncs
            } catch SyncError.notFound(let unknown) {
                let known = try SyncManager.syncStates(in: smartStore).compactMap(\.name)
                throw CommandFailure(Suggestion.unknown("sync", unknown, known: known))
            }
            let left = try await SyncLeftovers.of(state, in: smartStore)
            results.append((state, left))
            if !json && state.status == .failed { printer.line("\(name): FAILED: \(state.error)") }
            if !json { for line in left.lines(sync: name, store: store) { printer.line(line) } }
        }
        return results
    }

    /// The syncs to run, in order (those named, else every entry of `--syncs` created), and how
    /// many of the asked-for entries of `--syncs` were refused (each said on stderr).
    private func syncsToRun(_ manager: SyncManager, config: SyncsConfig?) async throws -> (names: [String], rejected: Int) {
        guard let config else { return (names, 0) }
        let report = try await manager.apply(config, replacingDefinitions: replaceDefinitions)
        for (name, error) in report.errors {
            // A soup the store lacks: say where soups come from.
            let hint = "\(error)".hasPrefix("Soup: ") ? " (register it with --store-config and a userstore.json)" : ""
            FileHandle.standardError.write(Data("sync \(name) not created: \(error)\(hint)\n".utf8))
        }
        for name in report.replaced { FileHandle.standardError.write(Data("sync \(name): definition replaced from --syncs\n".utf8)) }
        if !replaceDefinitions { try await noteKeptDefinitions(report.skipped, config: config, manager: manager) }
        let rejected = report.errors.filter { names.isEmpty || names.contains($0.name) }.count
        guard names.isEmpty else { return (names, rejected) }
        return (config.entries.map(\.name).filter { !report.errors.map(\.name).contains($0) }, rejected)
    }

    /// Says on stderr which existing syncs keep a stored definition that differs from --syncs
    /// (a changed merge mode, say), and how to take the file's.
    private func noteKeptDefinitions(_ names: [String], config: SyncsConfig, manager: SyncManager) async throws {
        for name in names {
            guard let entry = config.entries.first(where: { $0.name == name }), let stored = try await manager.syncStatus(named: name),
                stored.options != entry.options || stored.soupName != entry.soupName || stored.kind != entry.kind
            else { continue }
            FileHandle.standardError.write(
                Data(
                    "sync \(name): the store keeps its own definition, not --syncs' (give --replace-definitions to take the file's)\n".utf8)
            )
        }
    }

    /// A sync's state with the keys and values `msync syncs` writes, its `totalSize`, and the
    /// records it left unsent (`left`: entry id, server id, reason, error).
    private static func json(_ result: (state: SyncState, left: SyncLeftovers), openConflicts: [String: Int]) -> JSONValue {
        var object: [String: JSONValue] = [:]
        for (column, value) in zip(SyncsCommand.columns, SyncsCommand.row(result.state, openConflicts: openConflicts)) {
            object[column] = value
        }
        object["totalSize"] = .int(Int64(result.state.totalSize))
        object["left"] = .array(result.left.records.map(\.json))
        return .object(object)
    }

    /// `--live` follows SOQL sync downs: with none among the syncs asked for, it says so before
    /// any of them runs (a name that is no sync is left for the run to report).
    private static func checkLive(_ names: [String], manager: SyncManager) async throws {
        var others: [String] = []
        for name in names {
            guard let sync = try await manager.syncStatus(named: name) else { return }
            if sync.kind == .syncDown, (try? manager.targets.syncDownTarget(sync.target)) is SoqlSyncDownTarget { return }
            others.append("\(name) is a \(sync.kind == .syncUp ? "sync up" : "sync down of another target")")
        }
        guard !others.isEmpty else { return }
        throw CommandFailure(
            "--live follows SOQL sync downs, and none is asked for (\(others.joined(separator: ", "))): run these syncs without --live")
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
        guard !started.isEmpty else { throw CommandFailure("--live: none of these syncs is a SOQL sync down") }
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
