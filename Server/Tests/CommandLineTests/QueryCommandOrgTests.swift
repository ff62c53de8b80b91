import FastJSON
import Foundation
import Testing

/// `msync query --org` prints what the org answered as the query asked for it: a count for
/// `COUNT()`, members in SELECT order on every line and in every table.
@Suite struct QueryCommandOrgTests {
    static func query(_ harness: CommandLineOrg, _ soql: String, format: String) async throws -> (Int32, String) {
        try await Msync.run([
            "query", "--org", "--instance-url", harness.baseURL.absoluteString, "--token", CommandLineOrg.token, "--format", format, soql,
        ])
    }

    @Test func countOnlyPrintsTheCount() async throws {
        let harness = try await CommandLineOrg()
        defer { Task { await harness.stop() } }
        _ = try await harness.createAccounts(7)
        let (status, json) = try await Self.query(harness, "SELECT COUNT() FROM Account", format: "json")
        #expect(status == 0, "\(json)")
        #expect(json == "{\"count\":7}\n", "\(json)")
        let (_, csv) = try await Self.query(harness, "SELECT COUNT() FROM Account", format: "csv")
        #expect(csv == "count\r\n7\r\n", "\(csv)")
    }

    @Test func membersComeInSelectOrder() async throws {
        let harness = try await CommandLineOrg()
        defer { Task { await harness.stop() } }
        _ = try await harness.createAccounts(12)
        let soql = "SELECT Name, Industry, Id, LastModifiedDate FROM Account ORDER BY Name"
        let (status, json) = try await Self.query(harness, soql, format: "json")
        #expect(status == 0, "\(json)")
        let lines = json.split(separator: "\n").map(String.init)
        #expect(lines.count == 12)
        for line in lines {
            let names = Self.memberNames(line)
            #expect(names == ["attributes", "Name", "Industry", "Id", "LastModifiedDate"], "\(line)")
        }
        let (_, csv) = try await Self.query(harness, soql, format: "csv")
        #expect(csv.hasPrefix("Name,Industry,Id,LastModifiedDate\r\n"), "\(csv)")
    }

    /// A parent's fields are columns of their own in a table and in CSV (`Owner.Username`), in
    /// SELECT order; JSON lines keep the record as the org sent it.
    @Test func parentFieldsAreColumns() async throws {
        let harness = try await CommandLineOrg()
        defer { Task { await harness.stop() } }
        _ = try await harness.createAccounts(3)
        let soql = "SELECT Name, Owner.Username, Owner.Name, Industry FROM Account ORDER BY Name"
        let (status, csv) = try await Self.query(harness, soql, format: "csv")
        #expect(status == 0, "\(csv)")
        let lines = csv.split(separator: "\r\n").map(String.init)
        #expect(lines.first == "Name,Owner.Username,Owner.Name,Industry", "\(csv)")
        #expect(
            lines.count == 4
                && lines.dropFirst().allSatisfy {
                    !$0.contains("{") && $0.split(separator: ",", omittingEmptySubsequences: false).count == 4
                }, "\(csv)")
        let (_, table) = try await Self.query(harness, soql, format: "table")
        #expect(table.split(separator: "\n").first?.contains("Owner.Username") == true && !table.contains("attributes"), "\(table)")
        // Spelled as the query spells it: one column, whatever case the org answers in.
        let (_, lower) = try await Self.query(harness, "SELECT Name, owner.username FROM Account", format: "csv")
        let lowerLines = lower.split(separator: "\r\n").map(String.init)
        #expect(lowerLines.first == "Name,owner.username" && lowerLines.count == 4, "\(lower)")
        let (_, json) = try await Self.query(harness, soql, format: "json")
        let first = try #require(json.split(separator: "\n").first.map(String.init))
        #expect(Self.memberNames(first) == ["attributes", "Name", "Owner", "Industry"], "\(first)")
    }

    /// The top-level member names of a JSON object, in the order written.
    static func memberNames(_ line: String) -> [String] {
        guard let object = try? JSONValue(parsing: Array(line.utf8)).objectValue else { return [] }
        return object.keys.sorted { a, b in
            (line.range(of: "\"\(a)\":")?.lowerBound ?? line.endIndex) < (line.range(of: "\"\(b)\":")?.lowerBound ?? line.endIndex)
        }
    }
}
