import ArgumentParser
import FastJSON
import MobileSync
import SmartStore

/// `msync edit --store S --soup accounts ENTRY Name=Acme Employees:=12`: changes fields of one
/// entry as an app's `updateLocally` does, so that the next sync up sends them.
struct EditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Change fields of one record in a store as an app does (updateLocally): the next sync up sends them.",
        discussion: """
            NAME=TEXT sets a field to a string; NAME:=JSON to any JSON value (a number, true, \
            null, an object). The entry is given by its _soupEntryId, or with --id by its record id:
              msync edit --soup accounts 12 Name=Acme NumberOfEmployees:=40 \\
                --store app.sqlite
              msync edit --soup accounts --id 001000000000001AAA Industry=Shipping \\
                --store app.sqlite
            """
    )

    @OptionGroup
    var options: LocalEditOptions

    @OptionGroup
    var target: EntrySelection

    @Argument(help: "NAME=TEXT or NAME:=JSON, one or more.")
    var fields: [String]

    func validate() throws {
        guard !fields.isEmpty else { throw ValidationError("give at least one field, such as Name=Acme") }
        _ = try Self.changes(fields)
    }

    func run() async throws {
        let changes = try Self.changes(fields)
        let smartStore = try options.open()
        defer { try? smartStore.close() }
        let entryId = try await target.entryId(options, in: smartStore)
        let checked = try await options.changes(changes, toEntry: entryId, in: smartStore)
        let saved = try await smartStore.updateLocally(checked, entryId: entryId, in: options.soup)
        options.report([("updated", saved)])
    }

    /// The fields of `NAME=TEXT` and `NAME:=JSON` arguments; a store's own field is refused.
    static func changes(_ arguments: [String]) throws -> [String: JSONValue] {
        var changes: [String: JSONValue] = [:]
        for argument in arguments {
            guard let equals = argument.firstIndex(of: "=") else { throw ValidationError("\(argument): give NAME=TEXT or NAME:=JSON") }
            var name = String(argument[..<equals])
            let text = String(argument[argument.index(after: equals)...])
            let value: JSONValue
            if name.hasSuffix(":") {
                name.removeLast()
                do { value = try JSONValue(parsing: Array(text.utf8)) } catch {
                    throw ValidationError("\(argument): \(text) is not JSON (\(error)); NAME=TEXT sets a string")
                }
            } else {
                value = .string(text)
            }
            guard !name.isEmpty else { throw ValidationError("\(argument): the field name is empty") }
            guard !LocalEditOptions.bookkeeping.contains(name) else {
                throw ValidationError("\(name) is kept by the store and Mobile Sync: it is not set by hand")
            }
            guard changes.updateValue(value, forKey: name) == nil else { throw ValidationError("\(name) is given twice") }
        }
        return changes
    }
}
