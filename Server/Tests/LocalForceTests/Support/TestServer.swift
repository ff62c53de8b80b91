import FastJSON
import Foundation
import LocalForceHTTP
import LocalForcePostgres
import TestSupport

@testable import LocalForce

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A LocalForce on 127.0.0.1:0 with an in-memory database, and a tiny HTTP client for it.
final class TestServer: Sendable {
    static let token = "test-token"
    let server: LocalForceServer
    let version: String

    init(schema: Schema = .standard, version: String = "66.0", streaming: StreamingOptions = StreamingOptions()) async throws {
        let localForce = try await LocalForce(schema: schema, database: try await Self.database(), token: Self.token, streaming: streaming)
        server = try await LocalForceServer.start(localForce, host: "127.0.0.1", port: 0)
        self.version = version
    }

    /// A client for a server started elsewhere (with its own LocalForce options).
    init(server: LocalForceServer, version: String = "66.0") {
        self.server = server
        self.version = version
    }

    func stop() async { await server.stop() }

    /// The built `msync` (this target depends on it), for the tests of `msync serve`.
    static func msync() throws -> URL {
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return try BuiltProduct.executable("msync", package: package)
    }

    /// A fresh, empty database: SQLite in memory, or — when `LOCALFORCE_TEST_POSTGRES_URL` is
    /// set (scripts/test.sh runs the suite a second time that way) — a new schema on PostgreSQL.
    static func database() async throws -> any SQLDatabase {
        guard let url = ProcessInfo.processInfo.environment["LOCALFORCE_TEST_POSTGRES_URL"], !url.isEmpty else {
            return try SQLiteDatabase(path: ":memory:")
        }
        let schema = "t" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        return try await PostgresDatabase(url: url + (url.contains("?") ? "&" : "?") + "schema=" + schema, connections: 4)
    }

    struct Reply: Sendable {
        var status: Int
        var headers: [String: String]
        var body: Data
        var json: JSONValue? { try? JSONValue(parsing: body) }
        /// `errorCode` of the first error of an error array.
        var errorCode: String? { json?.arrayValue?.first?["errorCode"]?.stringValue }
        var message: String? { json?.arrayValue?.first?["message"]?.stringValue }
    }

    /// Sends a request; `path` is either absolute (`/services/…`) or relative to `/services/data/vNN.N/`.
    func send(
        _ method: String, _ path: String, json body: JSONValue? = nil, rawBody: Data? = nil, headers: [String: String] = [:],
        authorized: Bool = true
    ) async throws -> Reply {
        let full = path.hasPrefix("/") ? path : "/services/data/v\(version)/" + path
        guard let url = URL(string: server.baseURL.absoluteString + full) else { throw URLError(.badURL) }
        var request = URLRequest(url: url)
        request.httpMethod = method
        if authorized { request.setValue("Bearer \(Self.token)", forHTTPHeaderField: "Authorization") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body {
            request.httpBody = Data(body.jsonBytes)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        } else if let rawBody {
            request.httpBody = rawBody
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        var replyHeaders: [String: String] = [:]
        for (key, value) in http.allHeaderFields { replyHeaders[String(describing: key).lowercased()] = String(describing: value) }
        return Reply(status: http.statusCode, headers: replyHeaders, body: data)
    }

    /// Creates a record and returns its id.
    func create(_ object: String, _ fields: JSONValue) async throws -> String {
        let reply = try await send("POST", "sobjects/\(object)", json: fields)
        guard reply.status == 201, let id = reply.json?["id"]?.stringValue else {
            throw TestFailure("create \(object) failed: \(reply.status) \(String(decoding: reply.body, as: UTF8.self))")
        }
        return id
    }

    /// Runs a SOQL query (first page).
    func query(_ soql: String, all: Bool = false, headers: [String: String] = [:]) async throws -> Reply {
        let encoded = soql.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? soql
        return try await send("GET", "\(all ? "queryAll" : "query")?q=\(encoded)", headers: headers)
    }

    /// The records of a query, following every `nextRecordsUrl`.
    func allRecords(_ soql: String, headers: [String: String] = [:]) async throws -> [JSONValue] {
        var reply = try await query(soql, headers: headers)
        var records = reply.json?["records"]?.arrayValue ?? []
        while let next = reply.json?["nextRecordsUrl"]?.stringValue {
            reply = try await send("GET", next)
            records += reply.json?["records"]?.arrayValue ?? []
        }
        return records
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Runs `body` against a fresh server and stops it afterwards.
func withServer(schema: Schema = .standard, version: String = "66.0", _ body: (TestServer) async throws -> Void) async throws {
    let server = try await TestServer(schema: schema, version: version)
    do {
        try await body(server)
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}
