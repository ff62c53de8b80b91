import Foundation
import GRDB
import Testing

@testable import SmartStore

/// The page ingest done in Swift (``ScannedPageIngest``) writes exactly what the SQL path
/// writes: the same documents, index columns, full-text rows, results and skips. Each page is
/// ingested compact into one store (the scanned path) and with a space inside each record into
/// another, which sends it down the SQL path.
@Suite struct ScannedPageIngestTests {
    static let specs = [
        IndexSpec("Id", .string), IndexSpec("Name", .fullText), IndexSpec("NumberOfEmployees", .integer),
        IndexSpec("Owner.Name", .string), IndexSpec("IsActive", .integer), IndexSpec("Tags", .string), IndexSpec("Score", .floating),
        IndexSpec("__local__", .string), IndexSpec("LastModifiedDate", .json1), IndexSpec("Big", .string),
    ]

    static func record(_ id: String, _ name: String, date: String, extra: [String: JSONValue] = [:]) -> JSONValue {
        var fields: [String: JSONValue] = [
            "attributes": ["type": "Account", "url": .string("/services/data/v66.0/sobjects/Account/\(id)")],
            "Id": .string(id), "Name": .string(name), "LastModifiedDate": .string(date),
        ]
        fields.merge(extra) { _, new in new }
        return .object(fields)
    }

    /// The page text, compact or with a space after each record's opening brace.
    static func page(_ records: [JSONValue], spaced: Bool) -> [UInt8] {
        let texts = records.map { spaced ? "{ " + $0.jsonString.dropFirst() : $0.jsonString }
        return Array(#"{"totalSize":\#(records.count),"done":true,"records":[\#(texts.joined(separator: ","))]}"#.utf8)
    }

    /// Every row of the soup, with the write time replaced (it differs between the two stores).
    static func rows(_ store: SmartStore) throws -> [String] {
        try store.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM TABLE_1 ORDER BY id").map { row in
                row.columnNames.filter { $0 != "created" && $0 != "lastModified" }.map { name in
                    let value: DatabaseValue = row[name]
                    return "\(name)=\(value)".replacing(/_soupLastModifiedDate([^0-9]*)[0-9]+/) { "_soupLastModifiedDate\($0.1)T" }
                }.joined(separator: " | ")
            }
        }
    }

    static let bookkeeping: [String: JSONValue] = [
        "__local__": false, "__locally_created__": false, "__locally_updated__": false, "__locally_deleted__": false, "__sync_id__": 3,
    ]

    let scanned: SmartStore
    let viaSQL: SmartStore

    init() throws {
        try self.init(specs: Self.specs)
    }

    init(specs: [IndexSpec]) throws {
        scanned = try SmartStore()
        viaSQL = try SmartStore()
        for store in [scanned, viaSQL] { try store.registerSoup("accounts", indexSpecs: specs) }
    }

    /// Ingests into both stores and checks the results and the rows are the same.
    @discardableResult
    func ingestBoth(_ records: [JSONValue], skipDirty: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> PageIngestResult
    {
        let result = try scanned.ingestPage(
            Self.page(records, spaced: false), into: "accounts", skipDirty: skipDirty, setFields: Self.bookkeeping,
            removeFields: ["__last_error__"])
        let reference = try viaSQL.ingestPage(
            Self.page(records, spaced: true), into: "accounts", skipDirty: skipDirty, setFields: Self.bookkeeping,
            removeFields: ["__last_error__"])
        #expect(result == reference, sourceLocation: sourceLocation)
        #expect(try Self.rows(scanned) == Self.rows(viaSQL), sourceLocation: sourceLocation)
        return result
    }

    /// Whether the compact page goes the scanned way (checked in a transaction rolled back).
    func takesScannedPath(_ records: [JSONValue], spaced: Bool = false, skipDirty: Bool = false) throws -> Bool {
        try decline(records, spaced: spaced, skipDirty: skipDirty) == nil
    }

    func takesScannedPath(text: String, skipDirty: Bool = false) throws -> Bool {
        try decline(text: text, skipDirty: skipDirty) == nil
    }

    /// Why the scanned way declines the page (nil: it takes it).
    func decline(_ records: [JSONValue], spaced: Bool = false, skipDirty: Bool = false) throws -> PageIngestDecline? {
        try decline(text: String(decoding: Self.page(records, spaced: spaced), as: UTF8.self), skipDirty: skipDirty)
    }

    func decline(text: String, skipDirty: Bool = false) throws -> PageIngestDecline? {
        try scanned.write { db in
            var reason: PageIngestDecline?
            try db.inSavepoint {
                let soup = try scanned.requireSoup(db, named: "accounts")
                let ingest = PageIngest(
                    db: db, soup: soup, idColumn: "TABLE_1_0", text: text, arrayPath: "$.records", idPath: "Id",
                    timestampPath: "LastModifiedDate", setFields: Self.bookkeeping, removeFields: ["__last_error__"], skipDirty: skipDirty)
                do {
                    _ = try ScannedPageIngest(ingest)
                } catch let decline as PageIngestDecline {
                    reason = decline
                }
                return .rollback
            }
            return reason
        }
    }

    static let varied: [JSONValue] = [
        record(
            "001A", "Acme \"Quotes\" é\n\u{1F600}", date: "2026-01-02T00:00:00.000+0000",
            extra: [
                "NumberOfEmployees": 12, "Owner": ["Name": "Zoë", "Id": "005A"], "IsActive": true, "Tags": ["a", 1, ["b": nil]],
                "Score": 1.5, "Big": .double(1e20),
            ]),
        record(
            "001B", "Globex", date: "2026-01-05T00:00:00.000+0000",
            extra: [
                "NumberOfEmployees": .string("7"), "Owner": .null, "IsActive": false, "Tags": [:], "Score": .int(-3), "Big": .int(.min),
            ]),
        record("001C", "Initech", date: "2026-01-01T00:00:00.000+0000", extra: ["Owner": "not an object", "NumberOfEmployees": 1.25]),
        ["Id": "001D", "Name": "No date", "attributes": ["type": "Account"]],
    ]

    @Test func insertsAndUpdatesAsTheSQLPathDoes() throws {
        #expect(try takesScannedPath(Self.varied))
        #expect(try decline(Self.varied, spaced: true) == .notCompact)
        let first = try ingestBoth(Self.varied)
        #expect(
            first
                == PageIngestResult(
                    received: 4, written: 4, skipped: 0, maxTimestamp: "2026-01-05T00:00:00.000+0000", recordsWithoutTimestamp: 1))
        // Updates of two entries, one new record, and an entry the page does not name.
        try ingestBoth([
            Self.record("001B", "Globex Corp", date: "2026-02-01T00:00:00.000+0000", extra: ["NumberOfEmployees": 40]),
            Self.record("001E", "Umbrella", date: "2026-01-20T00:00:00.000+0000"),
            Self.record("001A", "Acme", date: "2026-01-21T00:00:00.000+0000"),
        ])
        let found = try scanned.query(.match(soup: "accounts", path: "Name", key: "Umbrella", orderPath: "Id", pageSize: 10))
        #expect(found.map { $0["Id"] } == ["001E"])
        #expect(try scanned.query(.match(soup: "accounts", path: "Name", key: "Globex", orderPath: "Id", pageSize: 10)).count == 1)
        let entry = try #require(try scanned.query(.exact(soup: "accounts", path: "Id", key: "001B", pageSize: 1)).first)
        #expect(entry["__sync_id__"] == 3 && entry["NumberOfEmployees"] == 40)
    }

    @Test func dirtyEntriesAreSkippedAsTheSQLPathSkipsThem() throws {
        try ingestBoth(Self.varied)
        // The same local edit in both stores, byte for byte.
        for store in [scanned, viaSQL] {
            try store.write { db in
                try db.execute(
                    sql: """
                        UPDATE TABLE_1 SET soup = json_set(soup, '$.__local__', json('true'), '$.Name', 'Edited here'),
                               TABLE_1_1 = 'Edited here', TABLE_1_7 = '1'
                        WHERE TABLE_1_0 = '001A'
                        """)
            }
        }
        let result = try ingestBoth(
            [
                Self.record("001A", "From the server", date: "2026-03-01T00:00:00.000+0000"),
                Self.record("001B", "Globex 2", date: "2026-03-02T00:00:00.000+0000"),
            ], skipDirty: true)
        #expect(result.written == 1 && result.skipped == 1)
        #expect(result.maxTimestamp == "2026-03-02T00:00:00.000+0000")
        #expect(try takesScannedPath([Self.record("001A", "Again", date: "2026-03-03T00:00:00.000+0000")], skipDirty: true))
        let kept = try scanned.query(.exact(soup: "accounts", path: "Id", key: "001A", pageSize: 1)).first
        #expect(kept?["Name"] == "Edited here")
    }

    /// Pages the scanned way declines (a record with a member the ingest sets or an escaped
    /// name, a duplicate id, no id, a record that is not an object) are written by the SQL
    /// path, with its results and errors.
    @Test func declinedPagesGoTheSQLWay() throws {
        let setsItself = Self.record("001X", "Has a flag", date: "2026-01-01T00:00:00.000+0000", extra: ["__local__": true])
        #expect(try decline([setsItself]) == .holdsBookkeepingField)
        try ingestBoth([setsItself])
        let duplicates = [
            Self.record("001Y", "First", date: "2026-01-01T00:00:00.000+0000"),
            Self.record("001Y", "Second", date: "2026-01-02T00:00:00.000+0000"),
        ]
        #expect(try decline(duplicates) == .duplicateId)
        let result = try ingestBoth(duplicates)
        #expect(result.written == 1 && result.skipped == 1)
        #expect(try decline([["Name": "no id"]]) == .noScalarId)
        #expect(throws: SmartStoreError.self) {
            try scanned.ingestPage(Self.page([["Name": "no id"]], spaced: false), into: "accounts")
        }
        let escaped = Array(#"{"records":[{"\u0049d":"001Z","Id":"001Z"}]}"#.utf8)
        let written = try scanned.ingestPage(escaped, into: "accounts")
        #expect(written.written == 1)
        #expect(try scanned.query(.exact(soup: "accounts", path: "Id", key: "001Z", pageSize: 1)).count == 1)
        #expect(throws: SmartStoreError.self) {
            try scanned.ingestPage(Array(#"{"records":[1,{"Id":"001W"}]}"#.utf8), into: "accounts")
        }
    }

    /// Ids matched with the id column's affinity, as the SQL path matches them: a numeric id
    /// updates the entry that holds it as text (`42.0` is the text "42.0", another entry).
    @Test func numericIdsMatchTextColumns() throws {
        try ingestBoth([["Id": 42, "Name": "Number"]])
        try ingestBoth([["Id": "42", "Name": "Text"], ["Id": 42.0, "Name": "Real"]])
        let names = try scanned.query(.all(soup: "accounts", orderPath: "Id", pageSize: 10)).map { $0["Name"] }
        #expect(names == ["Text", "Real"])
    }

    /// Values `json_extract` reads its own way, and names whose match depends on unescaping,
    /// decline the page: a string escaping U+0000 (cut short by SQLite), an escaped member name
    /// on a nested path, a record holding a removed field, an id two entries already hold.
    @Test func valuesReadDifferentlyDeclineThePage() throws {
        let nul = Self.record("001N", "a\u{0}b", date: "2026-01-01T00:00:00.000+0000")
        #expect(try decline([nul]) == .escapedNUL)
        try ingestBoth([nul])
        #expect(try decline(text: #"{"records":[{"Id":"001E","Owner":{"N\u0061me":"x","Name":"y"}}]}"#) == .escapedMemberName)
        #expect(try takesScannedPath(text: #"{"records":[{"Id":"001E","Owner":{"Name":"y","N\u0061me":"x"}}]}"#))
        let failed = Self.record("001F", "Failed before", date: "2026-01-01T00:00:00.000+0000", extra: ["__last_error__": "boom"])
        #expect(try decline([failed]) == .holdsBookkeepingField)
        try ingestBoth([failed])
        for store in [scanned, viaSQL] {
            try store.write { db in
                for _ in 0..<2 {
                    try db.execute(
                        sql: "INSERT INTO TABLE_1 (soup, created, lastModified, TABLE_1_0) VALUES ('{\"Id\":\"001Q\"}', 1, 1, '001Q')")
                }
            }
        }
        let twice = Self.record("001Q", "Held twice", date: "2026-01-01T00:00:00.000+0000")
        #expect(try decline([twice]) == .idHeldBySeveralEntries)
        try ingestBoth([twice])
        // A sequence at the end of the id range (a store file is outside data): no trap, the
        // SQL path answers as it would.
        for store in [scanned, viaSQL] {
            try store.write { db in try db.execute(sql: "UPDATE sqlite_sequence SET seq = 9223372036854775806 WHERE name = 'TABLE_1'") }
        }
        let late = [
            Self.record("001L", "Late", date: "2026-01-01T00:00:00.000+0000"),
            Self.record("001M", "Later", date: "2026-01-01T00:00:00.000+0000"),
        ]
        #expect(try decline(late) == .entryIdsExhausted)
        let outcomes = [(scanned, false), (viaSQL, true)].map { store, spaced in
            Result { try store.ingestPage(Self.page(late, spaced: spaced), into: "accounts", setFields: Self.bookkeeping) }
        }
        #expect(String(describing: outcomes[0]) == String(describing: outcomes[1]))
    }

    /// A timestamp in a text column goes the scanned way; in a numeric column (where SQLite's
    /// affinity and printing decide the max) or as a number, the SQL way; results agree.
    @Test(arguments: [SoupIndexType.string, .floating, .integer, .json1])
    func timestampsInColumns(_ type: SoupIndexType) throws {
        let stores = try Self(specs: [IndexSpec("Id", .string), IndexSpec("LastModifiedDate", type)])
        let dated = [
            Self.record("001A", "A", date: "2026-01-02T00:00:00.000+0000"), Self.record("001B", "B", date: "2026-01-09T00:00:00.000+0000"),
        ]
        #expect(try stores.takesScannedPath(dated) == (type == .string || type == .json1))
        try stores.ingestBoth(dated)
        let numeric: [JSONValue] = [["Id": "001C", "LastModifiedDate": 9], ["Id": "001D", "LastModifiedDate": 10.5], ["Id": "001E"]]
        #expect(try stores.decline(numeric) == (type == .string || type == .json1 ? .nonStringTimestamp : .numericTimestampColumn))
        let result = try stores.ingestBoth(numeric)
        #expect(result.recordsWithoutTimestamp == 1)
        #expect(try stores.decline(numeric, skipDirty: true) != nil)
        try stores.ingestBoth([["Id": "001F", "LastModifiedDate": 1e20]], skipDirty: true)
    }
}
