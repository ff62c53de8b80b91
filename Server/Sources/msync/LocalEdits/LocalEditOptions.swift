import ArgumentParser
import FastJSON
import Foundation
import MobileSync
import SmartStore

/// What `msync put`, `edit` and `delete` share: the store and soup they change, the id field,
/// and how they print what they did.
struct LocalEditOptions: ParsableArguments {
    @Option(help: "Path of an existing store's SQLite file.")
    var store: String

    @Option(help: "The soup holding the records.")
    var soup: String

    @Option(help: "The field holding a record's id (local or the server's).")
    var idField = "Id"

    @Option(help: "Output: table (the default on a terminal), json (one object per line, the default when piped) or csv.")
    var format: OutputFormat?

    @OptionGroup(title: "Encryption")
    var encryption: StoreKeyOptions

    /// The fields a store or Mobile Sync keeps for itself: an edit never sets them.
    static let bookkeeping: Set<String> = [
        "_soupEntryId", "_soupCreatedDate", "_soupLastModifiedDate", LocalFields.local, LocalFields.locallyCreated,
        LocalFields.locallyUpdated, LocalFields.locallyDeleted, LocalFields.syncId, LocalFields.lastError, LocalFields.createAttempt,
        LocalFields.updateAttempt,
    ]

    /// Opens the store for writing: it must exist (an edit never creates one), with its key
    /// when it is encrypted, and hold ``soup``. The command closes it when done, which empties
    /// the write-ahead log into the file.
    func open() throws -> SmartStore {
        guard FileManager.default.fileExists(atPath: store) else { throw CommandFailure("no store at \(store)") }
        // Checked read-only first: opening for writing would set up a store's tables in any
        // SQLite file (another program's database) before the soup could be looked for.
        do {
            let reader = try encryption.open(store, readOnly: true)
            defer { try? reader.close() }
            guard try reader.hasSoup(soup) else {
                let names = try reader.soupNames().sorted()
                throw CommandFailure("the store has " + Suggestion.unknown("soup", soup, known: names))
            }
        }
        return try encryption.open(store, readOnly: false)
    }

    /// `fields` as changes to the entry `entryId`: refused when they set a field the store
    /// keeps, give the record another id (its id is the server's, or the local one a sync up
    /// replaces), or change its `attributes`; the id and `attributes` as stored are left out.
    func changes(_ fields: [String: JSONValue], toEntry entryId: Int64, in smartStore: SmartStore) async throws -> [String: JSONValue] {
        guard let stored = try await smartStore.retrieve([entryId], from: soup).first else {
            throw CommandFailure("no entry of \(soup) has _soupEntryId \(entryId)")
        }
        var changes = try Self.checked(fields)
        for kept in [idField, "attributes"] {
            guard let given = changes.removeValue(forKey: kept) else { continue }
            guard given == stored[kept] ?? .null else {
                throw CommandFailure("\(kept) of entry \(entryId) is \((stored[kept] ?? .null).jsonString): an edit does not change it")
            }
        }
        return changes
    }

    /// `fields`, refused when they set a field the store or Mobile Sync keeps.
    static func checked(_ fields: [String: JSONValue]) throws -> [String: JSONValue] {
        if let kept = fields.keys.sorted().first(where: bookkeeping.contains) {
            throw CommandFailure("\(kept) is kept by the store and Mobile Sync: it is not set by hand")
        }
        return fields
    }

    /// The entry whose ``idField`` is `id`, or an error naming it.
    func entryId(ofRecord id: JSONValue, in smartStore: SmartStore) async throws -> Int64 {
        guard let entryId = try await smartStore.lookupSoupEntryId(soup: soup, path: idField, value: id) else {
            throw CommandFailure("no entry of \(soup) has \(idField) \(RowPrinter.text(id))")
        }
        return entryId
    }

    /// Prints one row per entry changed: what was done, the entry, its id and its local flags
    /// (what the next sync up will do with it).
    func report(_ edits: [(action: String, entry: JSONValue)]) {
        let columns = [
            "action", "_soupEntryId", idField, LocalFields.locallyCreated, LocalFields.locallyUpdated, LocalFields.locallyDeleted,
        ]
        let rows = edits.map { edit in [.string(edit.action)] + columns.dropFirst().map { edit.entry[$0] ?? .null } }
        RowPrinter(columns: columns, format: OutputFormat.resolved(format)).print(rows)
    }
}
