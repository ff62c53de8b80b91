import ArgumentParser
import SmartStore

/// The one entry `msync edit` and `msync resolve` act on: a `_soupEntryId`, or with `--id` a
/// record id.
struct EntrySelection: ParsableArguments {
    @Flag(help: "ENTRY is a record id (the --id-field's value), not a _soupEntryId.")
    var id = false

    @Argument(help: "The entry's _soupEntryId (a record id with --id).")
    var entry: String

    func validate() throws {
        if !id, Int64(entry) == nil { throw ValidationError("ENTRY must be a _soupEntryId (a number); give --id for a record id") }
    }

    /// The entry's `_soupEntryId` in `options`' soup (a record id looked up by its id field).
    func entryId(_ options: LocalEditOptions, in smartStore: SmartStore) async throws -> Int64 {
        try await id ? options.entryId(ofRecord: .string(entry), in: smartStore) : Int64(entry) ?? 0
    }
}
