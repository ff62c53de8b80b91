import ArgumentParser
import FastJSON
import Foundation
import MobileSync
import SalesforceREST
import SmartStore

/// `msync resolve --store S --soup accounts ENTRY --keep local|server|merged [--record FILE]`:
/// settles a conflict a sync left, as an app's `SyncManager.resolveConflict` does.
struct ResolveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolve",
        abstract: "Settle a record a sync left in conflict: keep the local version, the server's, or a merge.",
        discussion: """
            msync conflicts lists the records in conflict with both versions. --keep local sends the \
            local record on the next sync up (on top of the server version the conflict saw); --keep \
            server takes the server's version and drops the local change; --keep merged sets the fields \
            of the JSON object in --record FILE on the local record (the others stay), sent on the next \
            sync up like --keep local. Nothing goes to the server now. The entry is given by its _soupEntryId, or with --id \
            by its record id:
              msync resolve --store app.sqlite --soup accounts 12 --keep local
              msync resolve --store app.sqlite --soup accounts \\
                --id 001000000000001AAA --keep merged --record merged.json
            """
    )

    /// Which version to keep.
    enum Keep: String, ExpressibleByArgument, CaseIterable {
        case local, server, merged
    }

    @OptionGroup
    var options: LocalEditOptions

    @OptionGroup
    var target: EntrySelection

    @Option(help: "Which version to keep: local, server or merged.")
    var keep: Keep

    @Option(help: "With --keep merged: a JSON file holding the merged record's fields.")
    var record: String?

    func validate() throws {
        if keep == .merged, record == nil { throw ValidationError("--keep merged takes the merged fields in --record FILE") }
        if keep != .merged, record != nil { throw ValidationError("--record goes with --keep merged") }
        try InputFile.check(record, option: "--record")
    }

    func run() async throws {
        let resolution = try resolution()
        let smartStore = try options.open()
        defer { try? smartStore.close() }
        let entryId = try await target.entryId(options, in: smartStore)
        // Settling needs no server: the manager's client is never used.
        let offline = RestClient(instanceURL: URL(fileURLWithPath: "/"), tokenProvider: StaticAccessToken(""))
        let manager = try SyncManager(store: smartStore, client: offline, otherProcesses: .fail)
        do {
            try await manager.resolveConflict(entryId: entryId, soup: options.soup, keeping: resolution, idFieldName: options.idField)
        } catch SyncError.noConflict {
            throw CommandFailure("entry \(entryId) of \(options.soup) is not in conflict (msync conflicts lists those that are)")
        }
        let saved = try await smartStore.retrieve([entryId], from: options.soup).first ?? .null
        options.report([("resolved: kept \(keep.rawValue)", saved)])
    }

    /// What to keep, with the merged record read and checked first.
    private func resolution() throws -> ConflictResolution {
        switch keep {
        case .local: return .local
        case .server: return .server
        case .merged:
            let path = record ?? ""
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            guard let value = try? JSONValue(parsing: Array(bytes)), case .object(let fields) = value else {
                throw CommandFailure("--record \(path) must hold one JSON object of the merged record's fields")
            }
            return .merged(.object(try LocalEditOptions.checked(fields)))
        }
    }
}
