import GRDB
import Testing

@testable import SmartStore

/// The bulk page ingest: raw REST pages upserted inside SQLite.
@Suite struct PageIngestTests {
    let store: SmartStore

    init() throws {
        store = try SmartStore()
        try store.registerSoup(
            "accounts",
            indexSpecs: [
                IndexSpec("Id", .string), IndexSpec("Name", .fullText), IndexSpec("NumberOfEmployees", .integer),
                IndexSpec("__local__", .string), IndexSpec("LastModifiedDate", .json1),
            ])
    }

    static func page(_ records: [JSONValue]) -> [UInt8] {
        JSONValue.object(["totalSize": .int(Int64(records.count)), "done": true, "records": .array(records)]).jsonBytes
    }

    static func account(_ id: String, _ name: String, _ date: String, employees: Int64 = 10) -> JSONValue {
        [
            "attributes": ["type": "Account"], "Id": .string(id), "Name": .string(name), "NumberOfEmployees": .int(employees),
            "LastModifiedDate": .string(date),
        ]
    }

    static let bookkeeping: [String: JSONValue] = [
        "__local__": false, "__locally_created__": false, "__locally_updated__": false, "__locally_deleted__": false, "__sync_id__": 7,
    ]

    @Test func insertsThenUpdatesByIdWithBookkeeping() throws {
        let first = try store.ingestPage(
            Self.page([
                Self.account("001A", "Acme", "2026-01-01T00:00:00.000+0000"),
                Self.account("001B", "Globex", "2026-01-03T00:00:00.000+0000"),
            ]), into: "accounts", setFields: Self.bookkeeping, removeFields: ["__last_error__"])
        #expect(
            first
                == PageIngestResult(
                    received: 2, written: 2, skipped: 0, maxTimestamp: "2026-01-03T00:00:00.000+0000", recordsWithoutTimestamp: 0))
        let entries = try store.query(.all(soup: "accounts", orderPath: "Id", pageSize: 10))
        #expect(entries.map { $0["_soupEntryId"] } == [1, 2])
        #expect(entries[0]["__local__"] == false && entries[0]["__sync_id__"] == 7)
        #expect(entries[0]["attributes"]?["type"] == "Account")
        #expect(entries[0]["_soupLastModifiedDate"]?.int64Value ?? 0 > 0)
        // Projections: string, integer, boolean as 0.
        let projected = try store.read { db in try Row.fetchOne(db, sql: "SELECT TABLE_1_0, TABLE_1_2, TABLE_1_3 FROM TABLE_1 WHERE id = 1")
        }
        #expect(projected?[0] as String? == "001A")
        #expect(projected?[1] as Int64? == 10)
        #expect(projected?[2] as String? == "0")

        let second = try store.ingestPage(
            Self.page([
                Self.account("001B", "Globex Corp", "2026-01-05T00:00:00.000+0000", employees: 20),
                Self.account("001C", "Initech", "2026-01-04T00:00:00.000+0000"),
            ]), into: "accounts", setFields: Self.bookkeeping)
        #expect(second.written == 2 && second.maxTimestamp == "2026-01-05T00:00:00.000+0000")
        let globex = try store.query(.exact(soup: "accounts", path: "Id", key: "001B", pageSize: 1))
        #expect(globex.first?["Name"] == "Globex Corp" && globex.first?["_soupEntryId"] == 2)
        // New entries get fresh increasing ids (ids of records that were updates are skipped).
        let initech =
            try store.query(.exact(soup: "accounts", path: "Id", key: "001C", pageSize: 1)).first?["_soupEntryId"]?.int64Value ?? 0
        #expect(initech > 2)
        #expect(try store.count(.match(soup: "accounts", path: "Name", key: "Corp", pageSize: 1)) == 1)
        #expect(try store.count(.match(soup: "accounts", path: "Name", key: "Globex", pageSize: 1)) == 1)
        // The public API continues the same id sequence.
        #expect(try store.create(["Id": "001D"], in: "accounts")["_soupEntryId"]?.int64Value == initech + 1)
    }

    @Test func skipsDirtyEntriesWhenAsked() throws {
        try store.ingestPage(
            Self.page([Self.account("001A", "Acme", "2026-01-01T00:00:00.000+0000")]), into: "accounts", setFields: Self.bookkeeping)
        var local = try store.query(.exact(soup: "accounts", path: "Id", key: "001A", pageSize: 1))[0]
        local["Name"] = "Acme (edited offline)"
        local["__local__"] = true
        try store.upsert(local, in: "accounts")
        let page = Self.page([
            Self.account("001A", "Acme server", "2026-02-01T00:00:00.000+0000"),
            Self.account("001Z", "New", "2026-02-02T00:00:00.000+0000"),
        ])
        let kept = try store.ingestPage(page, into: "accounts", skipDirty: true, setFields: Self.bookkeeping)
        #expect(kept.written == 1 && kept.skipped == 1)
        #expect(try store.query(.exact(soup: "accounts", path: "Id", key: "001A", pageSize: 1))[0]["Name"] == "Acme (edited offline)")
        // The dirty predicate works on the string-indexed __local__ (projected 1).
        #expect(try store.query(.smart("select {accounts:Id} from {accounts} where {accounts:__local__} = 1", pageSize: 5)) == [["001A"]])
        let overwritten = try store.ingestPage(page, into: "accounts", skipDirty: false, setFields: Self.bookkeeping)
        #expect(overwritten.written == 2)
        #expect(try store.query(.exact(soup: "accounts", path: "Id", key: "001A", pageSize: 1))[0]["Name"] == "Acme server")
    }

    /// `keepNewer`: a record older than the entry it would update is skipped, on the scanned
    /// path and on SQL's (pretty-printed records decline the scan); an equal or later one, or a
    /// new one, is written.
    @Test(arguments: [false, true]) func keepNewerSkipsOlderRecords(pretty: Bool) throws {
        func page(_ records: [JSONValue]) -> [UInt8] {
            guard pretty else { return JSONValue.array(records).jsonBytes }
            let spaced = records.map { $0.jsonString.replacingOccurrences(of: ",\"", with: ", \"") }
            return Array(("[\n  " + spaced.joined(separator: ",\n  ") + "\n]").utf8)
        }
        try store.ingestPage(
            page([
                Self.account("001A", "Newer", "2026-02-01T00:00:00.000+0000"), Self.account("001B", "Same", "2026-02-01T00:00:00.000+0000"),
            ]),
            into: "accounts", recordsPath: "", setFields: Self.bookkeeping)
        let older = try store.ingestPage(
            page([
                Self.account("001A", "Older", "2026-01-01T00:00:00.000+0000"),
                Self.account("001B", "Same again", "2026-02-01T00:00:00.000+0000"),
                Self.account("001C", "New", "2025-01-01T00:00:00.000+0000"),
            ]), into: "accounts", recordsPath: "", keepNewer: true, setFields: Self.bookkeeping)
        #expect(older.written == 2 && older.skipped == 1)
        let names = try store.query(.all(soup: "accounts", orderPath: "Id", pageSize: 10)).map { $0["Name"] }
        #expect(names == ["Newer", "Same again", "New"])
        #expect(throws: SmartStoreError.self) {
            try store.ingestPage(page([]), into: "accounts", recordsPath: "", timestampPath: nil, keepNewer: true)
        }
    }

    @Test func maxTimestampFollowsSQLiteOrder() throws {
        let numbers: JSONValue = ["records": [["Id": "n1", "Version": 9], ["Id": "n2", "Version": 10], ["Id": "n3", "Version": 2.5]]]
        #expect(try store.ingestPage(numbers.jsonBytes, into: "accounts", timestampPath: "Version").maxTimestamp == "10")
        let texts: JSONValue = [
            "records": [["Id": "t1", "Stamp": "2026-01-09"], ["Id": "t2", "Stamp": "2026-01-10"], ["Id": "t3", "Stamp": 99]]
        ]
        let result = try store.ingestPage(texts.jsonBytes, into: "accounts", timestampPath: "Stamp")
        #expect(result.maxTimestamp == "2026-01-10" && result.recordsWithoutTimestamp == 0)
        // With skipDirty too: the scan declines both pages (a number among the stamps), and the
        // summary statement computes max() in SQL.
        #expect(
            try store.ingestPage(texts.jsonBytes, into: "accounts", timestampPath: "Stamp", skipDirty: true).maxTimestamp == "2026-01-10")
        #expect(try store.ingestPage(numbers.jsonBytes, into: "accounts", timestampPath: "Version", skipDirty: true).maxTimestamp == "10")
    }

    @Test func duplicateIdsInAPageKeepTheLastOne() throws {
        let result = try store.ingestPage(
            Self.page([
                Self.account("001A", "first", "2026-01-01T00:00:00.000+0000"),
                Self.account("001A", "second", "2026-01-02T00:00:00.000+0000"),
            ]), into: "accounts")
        #expect(result.written == 1 && result.skipped == 1)
        #expect(try store.query(.all(soup: "accounts", pageSize: 5)).map { $0["Name"] } == ["second"])
    }

    @Test func topLevelArraysAndMissingTimestamps() throws {
        let records: JSONValue = [
            ["Id": "x1", "Name": "no date"], ["Id": "x2", "Name": "dated", "LastModifiedDate": "2026-03-01T00:00:00.000Z"],
        ]
        let result = try store.ingestPage(records.jsonBytes, into: "accounts", recordsPath: "")
        #expect(result.received == 2 && result.recordsWithoutTimestamp == 1 && result.maxTimestamp == "2026-03-01T00:00:00.000Z")
        let empty = try store.ingestPage(Self.page([]), into: "accounts")
        #expect(empty == PageIngestResult(received: 0, written: 0, skipped: 0, maxTimestamp: nil, recordsWithoutTimestamp: 0))
    }

    @Test func badPagesAreTypedErrorsAndWriteNothing() throws {
        try store.ingestPage(Self.page([Self.account("001A", "Acme", "2026-01-01T00:00:00.000+0000")]), into: "accounts")
        let before = try store.query(.all(soup: "accounts", pageSize: 10))
        #expect(throws: SmartStoreError.self) { try store.ingestPage(Array(#"{"records": [{"Id": "x",}"#.utf8), into: "accounts") }
        #expect(throws: SmartStoreError.malformedJSON("Page has no array of records at '$.records'")) {
            try store.ingestPage(Array(#"{"totalSize": 0}"#.utf8), into: "accounts")
        }
        #expect(throws: SmartStoreError.emptyExternalId(path: "Id")) {
            try store.ingestPage(Self.page([["Id": "001N", "Name": "ok"], ["Name": "no id"]]), into: "accounts")
        }
        #expect(throws: SmartStoreError.malformedJSON("Page has 1 record(s) that are not JSON objects")) {
            try store.ingestPage(Array(#"{"records": [{"Id": "001Q"}, 3]}"#.utf8), into: "accounts")
        }
        #expect(throws: SmartStoreError.noIndexForPath(soup: "accounts", path: "Name.x")) {
            try store.ingestPage(Self.page([]), into: "accounts", idPath: "Name.x")
        }
        #expect(throws: SmartStoreError.invalidPath("Id') --")) { try store.ingestPage(Self.page([]), into: "accounts", idPath: "Id') --") }
        #expect(throws: SmartStoreError.unknownSoup("nope")) { try store.ingestPage(Self.page([]), into: "nope") }
        #expect(try store.query(.all(soup: "accounts", pageSize: 10)) == before)
    }
}
