import ArgumentParser
import Foundation
import MobileSync
import SmartStore

/// `msync soups --store F`: the soups of a store, their index specs and entry counts.
struct SoupsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soups",
        abstract: "List a store's soups with their index specs and entry counts.",
        discussion: "The store is opened read-only: nothing in it is created or changed.")

    @OptionGroup
    var options: StoreReadOptions

    func run() async throws {
        let rows = try Self.soups(in: try options.open()).map { soup -> [JSONValue] in
            let specs = soup.indexSpecs.map { "\($0.path):\($0.type.rawValue)" }
            return [.string(soup.name), .int(Int64(soup.entries)), .string(specs.joined(separator: ", "))]
        }
        RowPrinter(columns: ["soup", "entries", "indexSpecs"], format: options.format).print(rows)
    }

    /// The soups of `store` by name, each with its entry count and index specs (also the inspector's).
    static func soups(in store: SmartStore) throws -> [(name: String, entries: Int, indexSpecs: [IndexSpec])] {
        try store.soupNames().sorted().map { name in
            (name, try store.count(.all(soup: name, pageSize: 1)), try store.indexSpecs(ofSoup: name))
        }
    }
}

/// `msync syncs --store F`: the sync states stored in a store.
struct SyncsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "syncs",
        abstract: "List a store's syncs: name, type, target, status, progress, last maxTimeStamp, failures, conflicts.",
        discussion: """
            The store is opened read-only, so this also shows the progress of a sync that another \
            process is running on the same store.
            """)

    @OptionGroup
    var options: StoreReadOptions

    func run() async throws {
        let smartStore = try options.open()
        let states = try SyncManager.syncStates(in: smartStore)
        let open = try await Self.openConflicts(in: smartStore, of: states)
        RowPrinter(columns: Self.columns, format: options.format).print(states.map { Self.row($0, openConflicts: open) })
    }

    /// The columns of ``row(_:openConflicts:)``.
    static let columns = ["id", "name", "type", "target", "soup", "status", "progress", "maxTimeStamp", "failed", "conflicts", "error"]

    /// How many records of each soup of `states` are in conflict now.
    static func openConflicts(in store: SmartStore, of states: [SyncState]) async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for soup in Set(states.filter { $0.conflictCount > 0 }.map(\.soupName)) where try store.hasSoup(soup) {
            counts[soup] = try await SyncManager.conflicts(in: store, soup: soup).count
        }
        return counts
    }

    /// A sync state as `msync syncs` and the inspector show it. Its conflicts are those its last
    /// run found that are still open (`openConflicts`: the records of each soup in conflict
    /// now): one settled since, by `msync resolve` or otherwise, no longer counts.
    static func row(_ sync: SyncState, openConflicts: [String: Int]) -> [JSONValue] {
        let conflicts = min(sync.conflictCount, openConflicts[sync.soupName] ?? sync.conflictCount)
        return [
            .int(sync.id), sync.name.map(JSONValue.string) ?? .null, .string(sync.kind.rawValue),
            .string(summary(of: sync.target)), .string(sync.soupName), .string(sync.status.rawValue),
            .string(sync.totalSize < 0 ? "\(sync.progress)%" : "\(sync.progress)% of \(sync.totalSize)"),
            sync.maxTimeStamp < 0 ? .null : .string(date(sync.maxTimeStamp)), .int(Int64(sync.failedRecordCount)),
            .int(Int64(conflicts)), sync.error.isEmpty ? .null : .string(sync.error),
        ]
    }

    /// The target in a few words: its type and its query, object or field list.
    static func summary(of target: JSONValue) -> String {
        let type = target["type"]?.stringValue ?? target["iOSImpl"]?.stringValue ?? "custom"
        for key in ["query", "objectType", "sobjectType"] {
            if let value = target[key]?.stringValue { return "\(type): \(value)" }
        }
        if let fields = target["createFieldlist"]?.arrayValue ?? target["updateFieldlist"]?.arrayValue {
            return "\(type): " + fields.compactMap(\.stringValue).joined(separator: ", ")
        }
        return type
    }

    /// Milliseconds since 1970 as an ISO 8601 UTC date.
    static func date(_ milliseconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }
}

/// What a command that reads a store takes: the file, its key and the output format.
struct StoreReadOptions: ParsableArguments {
    @Option(help: "Path of an existing store's SQLite file.")
    var store: String

    @Option(
        name: .customLong("format"),
        help: "Output: table (the default on a terminal), json (one object per line, the default when piped) or csv.")
    var chosenFormat: OutputFormat?

    @OptionGroup(title: "Encryption")
    var encryption: StoreKeyOptions

    /// The format chosen, or the default for where the output goes.
    var format: OutputFormat { OutputFormat.resolved(chosenFormat) }

    /// The store, read-only: nothing in it is created or changed.
    func open() throws -> SmartStore {
        try encryption.open(store, readOnly: true)
    }
}
