import ArgumentParser
import FastJSON
import Foundation
import MobileSync
import SmartStore

/// `msync put --store S --soup accounts [FILE]`: JSON objects, one per line, saved as an
/// app's `createLocally` and `updateLocally` save them, so that the next sync up sends them.
struct PutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "put",
        abstract: "Create or update records in a store as an app does (createLocally, updateLocally): the next sync up sends them.",
        discussion: """
            Reads JSON objects, one per line, from FILE or standard input. A line updates an entry \
            when it names one: by _soupEntryId, by its id (--id-field, Id by default: it must \
            exist), or by the --external-id-field's value when an entry has it. Any other line \
            creates a record with a local id, of the type in its attributes.type or --object-type. \
            Every line is read and checked before anything is written:
              echo '{"Name":"Acme","Industry":"Shipping"}' | msync put --store app.sqlite --soup accounts --object-type Account
              msync put --store app.sqlite --soup accounts \\
                --external-id-field Name changes.jsonl
            """
    )

    @OptionGroup
    var options: LocalEditOptions

    @Option(help: "The sObject type of created records whose line has no attributes.type (such as Account).")
    var objectType: String?

    @Option(help: "A field whose value finds the entry to update (an indexed path); a line with a new value creates one.")
    var externalIdField: String?

    @Argument(help: "A file of JSON lines (default: standard input).")
    var file: String?

    func validate() throws {
        try InputFile.check(file, option: "FILE")
    }

    /// What one line does, decided before anything is written.
    private enum Plan {
        case create(fields: [String: JSONValue], objectType: String)
        case update(entryId: Int64, changes: [String: JSONValue])
        /// An update of the record an earlier line of this input creates (same external id).
        case updateCreated(line: Int, changes: [String: JSONValue])
    }

    func run() async throws {
        let smartStore = try options.open()
        defer { try? smartStore.close() }
        let lines = try Self.objects(
            in: try file.map { try Data(contentsOf: URL(fileURLWithPath: $0)) } ?? FileHandle.standardInput.readDataToEndOfFile())
        var plans: [(line: Int, plan: Plan)] = []
        var createdBy: [String: Int] = [:] // external id value → line creating it
        for (line, object) in lines {
            do {
                plans.append((line, try await plan(object, line: line, createdBy: &createdBy, in: smartStore)))
            } catch {
                throw CommandFailure("line \(line): \(error); nothing was saved")
            }
        }
        var edits: [(action: String, entry: JSONValue)] = []
        var created: [Int: Int64] = [:] // line → entry id (every create saved before a later line uses it)
        for (line, plan) in plans {
            do {
                switch plan {
                case .create(let fields, let objectType):
                    let entry = try await smartStore.createLocally(
                        fields, objectType: objectType, in: options.soup, idField: options.idField)
                    guard let entryId = entry["_soupEntryId"]?.int64Value else {
                        throw SmartStoreError.malformedJSON("a created entry has no _soupEntryId")
                    }
                    created[line] = entryId
                    edits.append(("created", entry))
                case .update(let entryId, let changes):
                    edits.append(("updated", try await smartStore.updateLocally(changes, entryId: entryId, in: options.soup)))
                case .updateCreated(let creator, let changes):
                    guard let entryId = created[creator] else { throw CommandFailure("line \(creator) created no entry") }
                    edits.append(("updated", try await smartStore.updateLocally(changes, entryId: entryId, in: options.soup)))
                }
            } catch {
                options.report(edits)
                throw CommandFailure("line \(line): \(error); the \(edits.count) lines before it were saved, the rest were not")
            }
        }
        options.report(edits)
    }

    /// What `object` (on `line`) does: update an entry it names, or create a record.
    private func plan(
        _ object: [String: JSONValue], line: Int, createdBy: inout [String: Int], in smartStore: SmartStore
    ) async throws -> Plan {
        var fields = object
        if let given = fields.removeValue(forKey: "_soupEntryId") {
            guard case .int(let entryId) = given else {
                throw CommandFailure("_soupEntryId must be a whole number, not \(given.jsonString)")
            }
            return .update(entryId: entryId, changes: try await options.changes(fields, toEntry: entryId, in: smartStore))
        }
        if let id = fields[options.idField], id != .null {
            let entryId = try await options.entryId(ofRecord: id, in: smartStore)
            return .update(entryId: entryId, changes: try await options.changes(fields, toEntry: entryId, in: smartStore))
        }
        if let path = externalIdField, let value = fields[path], value != .null {
            if let entryId = try await smartStore.lookupSoupEntryId(soup: options.soup, path: path, value: value) {
                return .update(entryId: entryId, changes: try await options.changes(fields, toEntry: entryId, in: smartStore))
            }
            let key = value.jsonString
            if let creator = createdBy[key] {
                // The record a line above creates: it has no stored id or attributes to keep yet.
                var changes = try LocalEditOptions.checked(fields)
                changes["attributes"] = nil
                return .updateCreated(line: creator, changes: changes)
            }
            createdBy[key] = line
        }
        guard let type = fields["attributes"]?["type"]?.stringValue ?? objectType else {
            throw CommandFailure("a new record needs its type: attributes.type in the line, or --object-type")
        }
        fields["attributes"] = nil
        return .create(fields: try LocalEditOptions.checked(fields), objectType: type)
    }

    /// The JSON objects of `data`, one per non-empty line, with their line numbers (from 1).
    static func objects(in data: Data) throws -> [(line: Int, object: [String: JSONValue])] {
        var objects: [(line: Int, object: [String: JSONValue])] = []
        for (index, text) in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let bytes = Array(text.last == UInt8(ascii: "\r") ? text.dropLast() : text)
            guard bytes.contains(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }) else { continue }
            let value: JSONValue
            do { value = try JSONValue(parsing: bytes) } catch {
                throw CommandFailure("line \(index + 1): malformed JSON (\(error)); nothing was saved")
            }
            guard let object = value.objectValue else {
                throw CommandFailure("line \(index + 1): not a JSON object; nothing was saved")
            }
            objects.append((index + 1, object))
        }
        guard !objects.isEmpty else { throw CommandFailure("no JSON objects to put: give one per line") }
        return objects
    }
}
