import FastJSON
import Foundation
import Testing

/// Bulk API 2.0 calls for the tests, over LocalForce's HTTP server.
struct BulkClient {
    let server: TestServer

    func createIngest(_ object: String, _ operation: String, options: [String: JSONValue] = [:]) async throws -> String {
        var body: [String: JSONValue] = ["object": .string(object), "operation": .string(operation), "contentType": "CSV"]
        body.merge(options) { _, new in new }
        let reply = try await server.send("POST", "jobs/ingest", json: .object(body))
        guard reply.status == 200, let id = reply.json?["id"]?.stringValue else {
            throw TestFailure("create job: \(reply.status) \(String(decoding: reply.body, as: UTF8.self))")
        }
        #expect(reply.json?["state"] == "Open")
        return id
    }

    func upload(_ id: String, _ csv: String) async throws -> TestServer.Reply {
        try await server.send("PUT", "jobs/ingest/\(id)/batches", rawBody: Data(csv.utf8), headers: ["Content-Type": "text/csv"])
    }

    func close(_ id: String) async throws -> TestServer.Reply {
        try await server.send("PATCH", "jobs/ingest/\(id)", json: ["state": "UploadComplete"])
    }

    /// Polls the job until it reaches a final state; its info. Fails when the job makes no
    /// progress (its state and processed count unchanged) for `stall`: a loaded machine may run
    /// it slowly, a stuck one never.
    func finished(_ id: String, kind: String = "ingest", stall: Duration = .seconds(60)) async throws -> JSONValue {
        var deadline = ContinuousClock.now + stall
        var seen: [JSONValue?] = []
        while ContinuousClock.now < deadline {
            let reply = try await server.send("GET", "jobs/\(kind)/\(id)")
            if let info = reply.json, let state = info["state"]?.stringValue, ["JobComplete", "Failed", "Aborted"].contains(state) {
                return info
            }
            let progress = [reply.json?["state"], reply.json?["numberRecordsProcessed"]]
            if progress != seen {
                seen = progress
                deadline = ContinuousClock.now + stall
            }
            try await Task.sleep(for: .milliseconds(30))
        }
        throw TestFailure("job \(id) made no progress for \(stall)")
    }

    /// Creates, uploads, closes and waits: the job's final info.
    func load(_ object: String, _ operation: String, _ csv: String, options: [String: JSONValue] = [:]) async throws -> (String, JSONValue)
    {
        let id = try await createIngest(object, operation, options: options)
        let uploaded = try await upload(id, csv)
        #expect(uploaded.status == 201, "\(String(decoding: uploaded.body, as: UTF8.self))")
        #expect(try await close(id).status == 200)
        return (id, try await finished(id))
    }

    func text(_ path: String) async throws -> String {
        let reply = try await server.send("GET", path)
        #expect(reply.status == 200, "\(path): \(String(decoding: reply.body, as: UTF8.self))")
        return String(decoding: reply.body, as: UTF8.self)
    }

    func query(_ soql: String, operation: String = "query", options: [String: JSONValue] = [:]) async throws -> (String, JSONValue) {
        var body: [String: JSONValue] = ["operation": .string(operation), "query": .string(soql)]
        body.merge(options) { _, new in new }
        let reply = try await server.send("POST", "jobs/query", json: .object(body))
        guard reply.status == 200, let id = reply.json?["id"]?.stringValue else {
            throw TestFailure("create query job: \(reply.status) \(String(decoding: reply.body, as: UTF8.self))")
        }
        return (id, try await finished(id, kind: "query"))
    }
}
