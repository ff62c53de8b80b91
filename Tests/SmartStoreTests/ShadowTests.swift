import Foundation
import Testing

@testable import SmartStore

/// Entry shadows: documents kept beside an entry, captured when a flag is set, removed with
/// the flag and with the entry.
@Suite struct ShadowTests {
    /// The flag's index, or none: the capture reads it wherever it is.
    static let flagIndexes: [SoupIndexType?] = [.string, .integer, .json1, .fullText, nil]

    @Test(arguments: 0..<flagIndexes.count)
    func capturedWhenTheFlagIsSetRemovedWhenItIsCleared(index: Int) async throws {
        let store = try SmartStore()
        var specs = [IndexSpec("Id", .string)]
        if let type = Self.flagIndexes[index] { specs.append(IndexSpec("__local__", type)) }
        try store.registerSoup("accounts", indexSpecs: specs)
        try store.captureShadow("base", inSoup: "accounts", whenFlagSet: "__local__")
        let clean = try await store.upsert(["Id": "001", "Name": "Acme", "__local__": false], in: "accounts")
        let id = try #require(clean["_soupEntryId"]?.int64Value)
        #expect(try await store.shadows("base", of: [id], in: "accounts").isEmpty)
        // An SDK-style edit: the whole record upserted with the flag set.
        var edited = clean
        edited["Name"] = "Acme Corp"
        edited["__local__"] = true
        edited = try await store.upsert(edited, in: "accounts") // the saved entry: the next save is no stale copy
        #expect(try await store.shadows("base", of: [id], in: "accounts")[id] == clean)
        // Later edits keep the first state; the flag as Android writes it ('true') counts too.
        edited["Name"] = "Acme Corporation"
        edited["__local__"] = "true"
        edited = try await store.upsert(edited, in: "accounts")
        #expect(try await store.shadows("base", of: [id], in: "accounts")[id] == clean)
        #expect(try await store.entryIds(withShadow: "base", in: "accounts") == [id])
        // Cleared: gone, with every other shadow of the entry.
        try await store.setShadows("note", [id: ["any": 1]], in: "accounts")
        edited["__local__"] = false
        edited = try await store.upsert(edited, in: "accounts")
        #expect(try await store.shadows("base", of: [id], in: "accounts").isEmpty)
        #expect(try await store.shadows("note", of: [id], in: "accounts").isEmpty)
        // Set again, then the entry deleted: gone.
        edited["__local__"] = 1
        try await store.upsert(edited, in: "accounts")
        #expect(try await store.shadows("base", of: [id], in: "accounts")[id]?["Name"] == "Acme Corporation")
        try await store.delete([id], from: "accounts")
        #expect(try await store.entryIds(withShadow: "base", in: "accounts").isEmpty)
    }

    @Test func modifyWritesEntriesAndShadowsInOneTransaction() async throws {
        let store = try SmartStore()
        try store.registerSoup("accounts", indexSpecs: [IndexSpec("Id", .string), IndexSpec("__local__", .string)])
        try store.captureShadow("base", inSoup: "accounts", whenFlagSet: "__local__")
        let saved = try await store.create([["Id": "1", "__local__": false], ["Id": "2", "__local__": false]], in: "accounts")
        let ids = saved.compactMap { $0["_soupEntryId"]?.int64Value }
        // The change sets the flag (the capture keeps the old entry) but sets the base itself: it wins.
        try await store.modify(ids, in: "accounts", shadows: ["base", "server"]) { edit in
            edit.entry?["__local__"] = true
            edit.shadows["base"] = ["Id": "chosen"]
            if edit.entry?["Id"] == "2" { edit.shadows["server"] = ["Id": "2", "Name": "theirs"] }
        }
        #expect(try await store.shadows("base", of: ids, in: "accounts") == [ids[0]: ["Id": "chosen"], ids[1]: ["Id": "chosen"]])
        #expect(try await store.shadows("server", of: ids, in: "accounts") == [ids[1]: ["Id": "2", "Name": "theirs"]])
        // Shadows are handed over, removed on request; a throwing change writes nothing.
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await store.modify(ids, in: "accounts", shadows: ["server"]) { edit in
                edit.shadows["server"] = nil
                if edit.entry?["Id"] == "2" { throw Refused() }
            }
        }
        #expect(try await store.shadows("server", of: ids, in: "accounts").count == 1)
        try await store.modify(ids, in: "accounts", shadows: ["server"]) { edit in
            #expect((edit.shadows["server"] != nil) == (edit.entry?["Id"] == "2"))
            edit.shadows["server"] = nil
        }
        #expect(try await store.shadows("server", of: ids, in: "accounts").isEmpty)
    }

    @Test func aCaptureSurvivesAlteringTheSoupAndDroppingForgetsIt() async throws {
        let store = try SmartStore()
        try store.registerSoup("accounts", indexSpecs: [IndexSpec("Id", .string), IndexSpec("__local__", .string)])
        try store.captureShadow("base", inSoup: "accounts", whenFlagSet: "__local__")
        let entry = try await store.create(["Id": "1", "Name": "before", "__local__": false], in: "accounts")
        let id = try #require(entry["_soupEntryId"]?.int64Value)
        try await store.setShadows("note", [id: "kept", 999: "no such entry"], in: "accounts")
        // The flag moves to another column type; the capture follows it.
        try store.alterSoup("accounts", indexSpecs: [IndexSpec("__local__", .integer), IndexSpec("Id", .string)], reIndexData: true)
        #expect(try await store.shadows("note", of: [id, 999], in: "accounts") == [id: "kept"])
        try await store.modify(id, in: "accounts") { $0["__local__"] = true }
        #expect(try await store.shadows("base", of: [id], in: "accounts")[id]?["Name"] == "before")
        try store.dropSoup("accounts")
        try store.registerSoup("accounts", indexSpecs: [IndexSpec("Id", .string), IndexSpec("__local__", .string)])
        let again = try await store.create(["Id": "1", "__local__": false], in: "accounts")
        let newId = try #require(again["_soupEntryId"]?.int64Value)
        try await store.modify(newId, in: "accounts") { $0["__local__"] = true }
        #expect(try await store.shadows("base", of: [newId], in: "accounts").isEmpty)
    }

    @Test func badNamesAreTypedErrors() throws {
        let store = try SmartStore()
        try store.registerSoup("accounts", indexSpecs: [IndexSpec("Id", .string)])
        #expect(throws: SmartStoreError.self) { try store.captureShadow("x'; drop", inSoup: "accounts", whenFlagSet: "__local__") }
        #expect(throws: SmartStoreError.self) { try store.captureShadow("base", inSoup: "accounts", whenFlagSet: "a'b") }
        #expect(throws: SmartStoreError.unknownSoup("none")) { try store.captureShadow("base", inSoup: "none", whenFlagSet: "f") }
        #expect(try store.shadows("base", of: [1], in: "accounts").isEmpty)
    }

    /// A page ingest that overwrites a dirty entry clears its shadows (one that leaves dirty
    /// entries alone keeps them); setting the flag with `setField` keeps the entry as it was.
    @Test func ingestAndSetFieldFollowTheFlag() async throws {
        let store = try SmartStore()
        try store.registerSoup("accounts", indexSpecs: [IndexSpec("Id", .string)])
        try store.captureShadow("base", inSoup: "accounts", whenFlagSet: "__local__")
        let page = #"{"records":[{"Id":"1","Name":"server"},{"Id":"2","Name":"server"}]}"#
        try await store.ingestPage(Array(page.utf8), into: "accounts", timestampPath: nil, setFields: ["__local__": false])
        let ids = try await store.query(.all(soup: "accounts", orderPath: "Id", pageSize: 10)).compactMap { $0["_soupEntryId"]?.int64Value }
        // Flag set through setField (not indexed here): the entries as they were are kept.
        try await store.setField("__local__", values: [ids[0]: true, ids[1]: true], in: "accounts")
        #expect(try await store.shadows("base", of: ids, in: "accounts").count == 2)
        #expect(try await store.shadows("base", of: ids, in: "accounts")[ids[0]]?["__local__"] == false)
        // Leaving dirty entries alone keeps their shadows; overwriting them clears them.
        try await store.ingestPage(Array(page.utf8), into: "accounts", timestampPath: nil, skipDirty: true, setFields: ["__local__": false])
        #expect(try await store.shadows("base", of: ids, in: "accounts").count == 2)
        try await store.ingestPage(
            Array(#"{"records":[{"Id":"1","Name":"again"}]}"#.utf8), into: "accounts", timestampPath: nil, setFields: ["__local__": false])
        #expect(try await store.shadows("base", of: ids, in: "accounts").keys.sorted() == [ids[1]])
        // Cleared through setField: gone.
        try await store.setField("__local__", to: false, entryIds: [ids[1]], in: "accounts")
        #expect(try await store.shadows("base", of: ids, in: "accounts").isEmpty)
    }
}
