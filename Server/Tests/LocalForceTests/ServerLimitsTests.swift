import FastJSON
import Foundation
import LocalForceHTTP
import TestSupport
import Testing

@testable import LocalForce

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct ServerLimitsTests {
    @Test func multipicklistIncludesAndExcludes() async throws {
        let schema = try SchemaFile.load(
            Data(
                """
                {"fields": {"Account": [{"name": "Regions__c", "type": "multipicklist", "picklistValues": ["EMEA", "APAC", "AMER"]}]}}
                """.utf8))
        try await withServer(schema: schema) { server in
            _ = try await server.create("Account", ["Name": "Everywhere", "Regions__c": "EMEA;APAC;AMER"])
            _ = try await server.create("Account", ["Name": "Europe", "Regions__c": "EMEA"])
            _ = try await server.create("Account", ["Name": "Nowhere"])
            func names(_ soql: String) async throws -> [String] {
                try await server.allRecords(soql).compactMap { $0["Name"]?.stringValue }
            }
            #expect(
                try await names("SELECT Name FROM Account WHERE Regions__c INCLUDES ('emea') ORDER BY Name") == ["Europe", "Everywhere"])
            #expect(try await names("SELECT Name FROM Account WHERE Regions__c INCLUDES ('EMEA;APAC')") == ["Everywhere"])
            #expect(try await names("SELECT Name FROM Account WHERE Regions__c INCLUDES ('AMER', 'EMEA;APAC')") == ["Everywhere"])
            #expect(try await names("SELECT Name FROM Account WHERE Regions__c EXCLUDES ('APAC') ORDER BY Name") == ["Europe", "Nowhere"])
            #expect(try await server.query("SELECT Name FROM Account WHERE Name INCLUDES ('x')").errorCode == "INVALID_FIELD")
        }
    }

    @Test func bodySizeLimit() async throws {
        let localForce = try await LocalForce(database: try await TestServer.database(), token: TestServer.token, maximumBodySize: 1024)
        let server = try await LocalForceServer.start(localForce)
        var request = URLRequest(url: server.baseURL.appendingPathComponent("services/data/v66.0/sobjects/Account"))
        request.httpMethod = "POST"
        request.setValue("Bearer \(TestServer.token)", forHTTPHeaderField: "Authorization")
        request.httpBody = Data(JSONValue.object(["Name": .string(String(repeating: "x", count: 4000))]).jsonBytes)
        let (data, response) = try await URLSession.shared.data(for: request)
        await server.stop()
        #expect((response as? HTTPURLResponse)?.statusCode == 413)
        #expect(try JSONValue(parsing: data).arrayValue?.first?["errorCode"] == "REQUEST_TOO_LARGE")
    }

    /// `msync serve` prints its address (and a generated token) and serves until stopped —
    /// on PostgreSQL (`--database postgres://…`) in the suite's PostgreSQL run.
    @Test func serveCommand() async throws {
        let binary = try TestServer.msync()
        var arguments = ["serve", "--port", "0"]
        if let url = ProcessInfo.processInfo.environment["LOCALFORCE_TEST_POSTGRES_URL"], !url.isEmpty {
            let schema = "serve" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
            arguments += ["--database", url + (url.contains("?") ? "&" : "?") + "schema=" + schema]
        }
        // Its own temporary directory: an in-memory org's private folder goes there.
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: temporary) }
        let process = try RunningChild(
            binary, arguments, environment: ProcessInfo.processInfo.environment.merging(["TMPDIR": temporary.path]) { _, new in new },
            output: .standardOutput)
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        let output = try #require(process.output)
        let banner = await ChildProcess.read(output) { $0.contains("token: ") && $0.hasSuffix("\n") }
        let lines = banner.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("LocalForce listening on http://127.0.0.1:") == true)
        let address = try #require(lines.first?.replacingOccurrences(of: "LocalForce listening on ", with: ""))
        let token = try #require(lines.first { $0.hasPrefix("token: ") }?.dropFirst(7))
        var request = URLRequest(url: try #require(URL(string: address + "/services/data/v66.0/limits")))
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (_, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        var create = URLRequest(url: try #require(URL(string: address + "/services/data/v66.0/sobjects/Account")))
        create.httpMethod = "POST"
        create.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        create.setValue("application/json", forHTTPHeaderField: "Content-Type")
        create.httpBody = Data(#"{"Name": "Served"}"#.utf8)
        let (_, created) = try await URLSession.shared.data(for: create)
        #expect((created as? HTTPURLResponse)?.statusCode == 201)
        // Ctrl-C stops it cleanly (130, as a shell reports SIGINT), leaving no file behind.
        process.interrupt()
        while process.isRunning { try await Task.sleep(for: .milliseconds(50)) }
        await process.exited()
        #expect(process.terminationStatus == 130)
        let left = try FileManager.default.contentsOfDirectory(atPath: temporary.path)
        #expect(left.isEmpty, "\(left)")
    }
}

/// A file database keeps the org across restarts; ids and the write clock continue.
@Suite struct PersistenceTests {
    @Test func fileDatabaseSurvivesARestart() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("localforce-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("org.sqlite").path
        let first = try await LocalForce(database: try SQLiteDatabase(path: path), token: "t")
        let ids = try await first.insert([["Name": "Kept"], ["Name": "Also kept"]], of: "Account")
        let second = try await LocalForce(database: try SQLiteDatabase(path: path), token: "t")
        #expect(second.userId == first.userId)
        let more = try await second.insert([["Name": "New"]], of: "Account")
        #expect(Set(ids + more).count == 3)
        let response = await second.handle(
            APIRequest(
                method: "GET", path: "/services/data/v66.0/query", query: "q=SELECT+Name+FROM+Account+ORDER+BY+LastModifiedDate",
                headers: ["Authorization": "Bearer t"], body: []))
        #expect(
            try JSONValue(parsing: response.body)["records"]?.arrayValue?.compactMap { $0["Name"]?.stringValue } == [
                "Kept", "Also kept", "New",
            ])
    }
}
