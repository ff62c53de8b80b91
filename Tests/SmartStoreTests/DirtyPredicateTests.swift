import SmartStore
import Testing

/// `{soup:__local__} = 1` finds dirty records whatever index type `__local__` has, or none,
/// whether the records were saved through the API or the bulk page ingest.
@Suite struct DirtyPredicateTests {
    static let types: [SoupIndexType?] = [.string, .integer, .floating, .json1, .fullText, nil]

    @Test(arguments: types)
    func dirtyAndCleanRecordsAreFound(localType: SoupIndexType?) throws {
        let store = try SmartStore()
        var specs = [IndexSpec("Id", .string)]
        if let localType { specs.append(IndexSpec("__local__", localType)) }
        try store.registerSoup("accounts", indexSpecs: specs)
        let page: JSONValue = ["records": [["Id": "a"], ["Id": "b"], ["Id": "c"]]]
        try store.ingestPage(page.jsonBytes, into: "accounts", timestampPath: nil, setFields: ["__local__": false])
        try store.upsert(
            [["Id": "d", "__local__": true], ["Id": "e", "__local__": false], ["Id": "f"]], in: "accounts", externalIdPath: "Id")
        var b = try store.query(.exact(soup: "accounts", path: "Id", key: "b", pageSize: 1))[0]
        b["__local__"] = true
        try store.upsert(b, in: "accounts")

        let dirty = try store.query(
            .smart("select {accounts:Id} from {accounts} where {accounts:__local__} = 1 order by {accounts:Id}", pageSize: 10))
        #expect(dirty == [["b"], ["d"]])
        let clean = try store.query(
            .smart("select {accounts:Id} from {accounts} where {accounts:__local__} = 0 order by {accounts:Id}", pageSize: 10))
        #expect(clean == [["a"], ["c"], ["e"]])
        let exact = try store.query(
            .exact(soup: "accounts", selectPaths: ["Id"], path: "__local__", key: true, orderPath: "Id", pageSize: 10))
        #expect(exact == [["b"], ["d"]])
        // LEAVE_IF_CHANGED ingest skips the dirty ones.
        let result = try store.ingestPage(
            JSONValue.object(["records": [["Id": "b", "v": 1], ["Id": "d", "v": 1], ["Id": "a", "v": 1]]]).jsonBytes,
            into: "accounts", timestampPath: nil, skipDirty: true, setFields: ["__local__": false])
        #expect(result.written == 1 && result.skipped == 2)
    }
}
