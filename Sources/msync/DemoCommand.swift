import ArgumentParser
import Foundation
import SmartStore

/// `msync demo`: a guided tour. Until the sync engine lands it shows the store on its own:
/// soups, upserts by external id, Smart SQL, full-text search and the bulk page ingest.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Show the stack at work on a fresh store."
    )

    @Option(help: "Store file to use (a temporary one when omitted).")
    var store: String?

    func run() throws {
        let path = store ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("msync-demo-\(ProcessInfo.processInfo.processIdentifier).sqlite").path
        let smartStore = try SmartStore(path: path)
        print("store: \(path)")
        try smartStore.registerSoup("accounts", indexSpecs: [
            IndexSpec("Id", .string), IndexSpec("Name", .fullText), IndexSpec("Industry", .string),
            IndexSpec("LastModifiedDate", .string), IndexSpec("__local__", .json1),
        ])
        let page = Self.samplePage(count: 2000)
        let ingest = try smartStore.ingestPage(page, into: "accounts", idPath: "Id",
                                               timestampPath: "LastModifiedDate", setFields: ["__local__": false])
        print("bulk ingest: \(ingest.received) records received, \(ingest.written) written, max LastModifiedDate \(ingest.maxTimestamp ?? "-")")
        var acme = try smartStore.query(.exact(soup: "accounts", path: "Id", key: "001000000000007AAA", pageSize: 1))[0]
        acme["Name"] = "Acme Rockets"
        acme["__local__"] = true
        try smartStore.upsert(acme, in: "accounts", externalIdPath: "Id")
        print("local edit: \(acme["Id"]?.stringValue ?? "") renamed, marked dirty")
        let dirty = try smartStore.query(.smart("select {accounts:Id}, {accounts:Name} from {accounts} where {accounts:__local__} = 1", pageSize: 10))
        print("dirty records: \(dirty.map(\.jsonString).joined(separator: " "))")
        let byIndustry = try smartStore.query(.smart("""
            select {accounts:Industry}, count(*) from {accounts} group by {accounts:Industry} order by {accounts:Industry}
            """, pageSize: 10))
        print("accounts per industry: \(byIndustry.map(\.jsonString).joined(separator: " "))")
        let found = try smartStore.count(.match(soup: "accounts", path: "Name", matchKey: "Rockets", pageSize: 10))
        print("full-text 'Rockets': \(found) match")
        if store == nil { try? FileManager.default.removeItem(atPath: path) }
    }

    static func samplePage(count: Int) -> [UInt8] {
        let industries = ["Energy", "Media", "Retail", "Technology"]
        let records: [JSONValue] = (0..<count).map { index in
            let id = String(format: "001%012dAAA", index)
            return [
                "attributes": ["type": "Account", "url": .string("/services/data/v66.0/sobjects/Account/\(id)")],
                "Id": .string(id), "Name": .string("Account \(index)"), "Industry": .string(industries[index % industries.count]),
                "LastModifiedDate": .string(String(format: "2026-11-%02dT10:00:00.000+0000", 1 + index % 20)),
            ]
        }
        let page: JSONValue = ["totalSize": .int(Int64(count)), "done": true, "records": .array(records)]
        return page.jsonBytes
    }
}
