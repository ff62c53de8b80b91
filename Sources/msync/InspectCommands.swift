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
        let smartStore = try options.open()
        let rows = try smartStore.soupNames().sorted().map { name -> [JSONValue] in
            let specs = try smartStore.indexSpecs(ofSoup: name).map { "\($0.path):\($0.type.rawValue)" }
            let entries = try smartStore.count(.all(soup: name, pageSize: 1))
            return [.string(name), .int(Int64(entries)), .string(specs.joined(separator: ", "))]
        }
        RowPrinter(columns: ["soup", "entries", "indexSpecs"], format: options.format).print(rows)
    }
}

/// `msync syncs --store F`: the sync states stored in a store.
struct SyncsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "syncs",
        abstract: "List a store's syncs: name, type, target, status, progress, last maxTimeStamp, failures.",
        discussion: """
            The store is opened read-only, so this also shows the progress of a sync that another \\
            process is running on the same store.
            """)

    @OptionGroup
    var options: StoreReadOptions

    func run() async throws {
        let smartStore = try options.open()
        let rows = try SyncManager.syncStates(in: smartStore).map { sync -> [JSONValue] in
            [
                .int(sync.id), sync.name.map(JSONValue.string) ?? .null, .string(sync.kind == .syncDown ? "syncDown" : "syncUp"),
                .string(Self.summary(of: sync.target)), .string(sync.soupName), .string(sync.status.rawValue),
                .string(sync.totalSize < 0 ? "\(sync.progress)%" : "\(sync.progress)% of \(sync.totalSize)"),
                sync.maxTimeStamp < 0 ? .null : .string(Self.date(sync.maxTimeStamp)), .int(Int64(sync.failedRecordCount)),
                sync.error.isEmpty ? .null : .string(sync.error),
            ]
        }
        RowPrinter(
            columns: ["id", "name", "type", "target", "soup", "status", "progress", "maxTimeStamp", "failed", "error"],
            format: options.format
        ).print(rows)
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
        try SmartStore(readOnlyAt: store, key: encryption.key())
    }
}
