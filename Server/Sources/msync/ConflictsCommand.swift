import ArgumentParser
import FastJSON
import Foundation
import MobileSync
import SmartStore

/// `msync conflicts --store F`: the records syncs left in conflict, with both versions.
struct ConflictsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conflicts",
        abstract: "List the records a sync left in conflict: kind, fields, and the local, server and base values.",
        discussion: """
            A record changed here and on the server (LEAVE_IF_CHANGED, MERGE_FIELDS) is not sent until \
            msync resolve (or SyncManager.resolveConflict in an app) settles it. The store is opened read-only. With --format json, \
            each line carries the whole local, server and base records.
            """)

    @OptionGroup
    var options: StoreReadOptions

    @Option(help: "Only this soup (default: every soup).")
    var soup: String?

    func run() async throws {
        let store = try options.open()
        let soups = try soup.map { [$0] } ?? store.soupNames().filter { $0 != "syncs_soup" }.sorted()
        var conflicts: [SyncConflict] = []
        for name in soups { conflicts += try await SyncManager.conflicts(in: store, soup: name) }
        if options.format == .json {
            for conflict in conflicts { print(Self.json(conflict).sortedJSONString) }
            return
        }
        RowPrinter(columns: Self.columns, format: options.format).print(conflicts.map(Self.row))
    }

    static let columns = ["soup", "entry", "id", "kind", "fields", "local", "server", "base", "detected"]

    /// A conflict in a row: the values of its fields on each side (all fields that differ when
    /// it names none).
    static func row(_ conflict: SyncConflict) -> [JSONValue] {
        let fields = shownFields(conflict)
        func values(_ record: JSONValue?) -> JSONValue {
            guard let record else { return "(deleted)" }
            return .string(fields.map { "\($0)=\((record[$0] ?? .null).jsonString)" }.joined(separator: ", "))
        }
        return [
            .string(conflict.soupName), .int(conflict.entryId), conflict.local["Id"] ?? .null, .string(conflict.kind.rawValue),
            .string(conflict.fields.joined(separator: ", ")),
            conflict.local[LocalFields.locallyDeleted] == true ? "(deleted)" : values(conflict.local), values(conflict.server),
            conflict.base.map { values($0) } ?? .null, .string(SyncsCommand.date(conflict.detectedAt)),
        ]
    }

    /// The conflict's fields, or (a sync without a field list) the fields where the local and
    /// server versions differ, but for those that change with every write.
    static func shownFields(_ conflict: SyncConflict) -> [String] {
        guard conflict.fields.isEmpty, let server = conflict.server?.objectValue else { return conflict.fields }
        let bookkeeping: Set = ["attributes", "Id", "LastModifiedById", "LastModifiedDate", "SystemModstamp"]
        return server.keys.filter { field in
            !bookkeeping.contains(field) && !field.hasPrefix("_") && conflict.local[field] != server[field]
        }.sorted()
    }

    /// A conflict as one JSON object (also the inspector's).
    static func json(_ conflict: SyncConflict) -> JSONValue {
        [
            "soup": .string(conflict.soupName), "entryId": .int(conflict.entryId), "kind": .string(conflict.kind.rawValue),
            "fields": .array(shownFields(conflict).map(JSONValue.string)), "local": conflict.local, "server": conflict.server ?? .null,
            "base": conflict.base ?? .null, "detectedAt": .int(conflict.detectedAt),
        ]
    }
}
