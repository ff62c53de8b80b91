import FastJSON
import Foundation
import Testing

@testable import LocalForce

/// Bulk API 1.0 over HTTP: JSON and CSV jobs, batches and their results, queries, the job's
/// states, `X-SFDC-Session`, and errors in the API's own shape.
@Suite struct BulkClassicTests {
    static let session = ["X-SFDC-Session": TestServer.token]

    static func send(
        _ server: TestServer, _ method: String, _ path: String, json: JSONValue? = nil, raw: String? = nil, contentType: String? = nil
    ) async throws -> TestServer.Reply {
        var headers = session
        if raw != nil { headers["Content-Type"] = "text/csv" }
        if let contentType { headers["Content-Type"] = contentType }
        return try await server.send(
            method, "/services/async/59.0/" + path, json: json, rawBody: raw.map { Data($0.utf8) }, headers: headers, authorized: false)
    }

    /// An answer in XML, read.
    static func xml(_ reply: TestServer.Reply) throws -> BulkXMLElement {
        #expect(reply.headers["content-type"] == "application/xml", "\(reply.headers)")
        return try BulkXMLReader.parse(Array(reply.body))
    }

    /// Polls a batch until it is done (three minutes at most: a batch is one transaction, so
    /// it shows no progress before it ends, and a loaded machine runs it slowly), asking for
    /// its info in JSON whatever the job's content type.
    static func batchDone(_ server: TestServer, job: String, batch: String) async throws -> JSONValue {
        let deadline = ContinuousClock.now + .seconds(180)
        while ContinuousClock.now < deadline {
            let info = try await send(server, "GET", "job/\(job)/batch/\(batch)", contentType: "application/json").json
            if let state = info?["state"]?.stringValue, ["Completed", "Failed", "NotProcessed"].contains(state), let info { return info }
            try await Task.sleep(for: .milliseconds(30))
        }
        throw TestFailure("batch \(batch) did not finish within three minutes")
    }

    static func createJob(_ server: TestServer, _ body: JSONValue) async throws -> String {
        let reply = try await send(server, "POST", "job", json: body)
        #expect(reply.status == 201 && reply.json?["state"] == "Open", "\(String(decoding: reply.body, as: UTF8.self))")
        return try #require(reply.json?["id"]?.stringValue)
    }

    @Test func jsonJobsInsertAndQueryInBatches() async throws {
        try await withServer { server in
            let job = try await Self.createJob(
                server, ["operation": "insert", "object": "Account", "contentType": "JSON", "concurrencyMode": 0])
            let batch = try #require(
                try await Self.send(
                    server, "POST", "job/\(job)/batch", json: [["Name": "One", "NumberOfEmployees": 5], ["Industry": "x"]]
                )
                .json?["id"]?.stringValue)
            let info = try await Self.batchDone(server, job: job, batch: batch)
            #expect(info["state"] == "Completed" && info["jobId"] == .string(job) && info["numberRecordsProcessed"]?.int64Value == 2)
            let results = try await Self.send(server, "GET", "job/\(job)/batch/\(batch)/result").json?.arrayValue ?? []
            #expect(results.count == 2 && results[0]["success"] == true && results[0]["created"] == true)
            #expect(results[1]["success"] == false && results[1]["errors"]?.arrayValue?.first?["statusCode"] == "REQUIRED_FIELD_MISSING")
            let closed = try await Self.send(server, "POST", "job/\(job)", json: ["state": "Closed"])
            #expect(closed.json?["state"] == "Closed" && closed.json?["numberBatchesCompleted"]?.int64Value == 1)
            #expect(closed.json?["numberRecordsFailed"]?.int64Value == 1 && closed.json?["concurrencyMode"] == "Parallel")
            let late = try await Self.send(server, "POST", "job/\(job)/batch", json: [["Name": "Late"]])
            #expect(late.status == 400 && late.json?["exceptionCode"] == "InvalidJobState")
            #expect(late.json?["exceptionMessage"] == "Failed to create batch, since the Job is not Open. Current job state is 'Closed'")
            #expect(try await Self.send(server, "GET", "job/\(job)/batch").json?["batchInfo"]?.arrayValue?.count == 1)

            let query = try await Self.createJob(server, ["operation": "query", "object": "Account", "contentType": "JSON"])
            let queryBatch = try #require(
                try await server.send(
                    "POST", "/services/async/59.0/job/\(query)/batch", rawBody: Data("SELECT Id, Name FROM Account".utf8),
                    headers: Self.session.merging(["Content-Type": "application/json"]) { _, new in new }, authorized: false
                ).json?["id"]?.stringValue)
            _ = try await Self.send(server, "POST", "job/\(query)", json: ["state": "Closed"])
            #expect(try await Self.batchDone(server, job: query, batch: queryBatch)["state"] == "Completed")
            let ids = try await Self.send(server, "GET", "job/\(query)/batch/\(queryBatch)/result").json?.arrayValue ?? []
            #expect(ids.count == 1)
            let records = try await Self.send(server, "GET", "job/\(query)/batch/\(queryBatch)/result/\(ids[0].stringValue ?? "")").json
            #expect(records?.arrayValue?.map { $0["Name"] } == ["One"] && records?.arrayValue?.first?["attributes"]?["type"] == "Account")
        }
    }

    @Test func csvJobsUpsertByExternalId() async throws {
        try await withServer { server in
            _ = try await server.create("Invoice__c", ["Name": "Old", "Invoice_Number__c": "INV-1"])
            let job = try await Self.createJob(
                server, ["operation": "upsert", "object": "Invoice__c", "contentType": "CSV", "externalIdFieldName": "Invoice_Number__c"])
            // A CSV job answers in XML (its results excepted) unless the request asks for JSON.
            let batch = try #require(
                try Self.xml(
                    try await Self.send(server, "POST", "job/\(job)/batch", raw: "Invoice_Number__c,Name\nINV-1,Renamed\nINV-2,New\n")
                ).childText("id"))
            #expect(try await Self.batchDone(server, job: job, batch: batch)["numberRecordsFailed"]?.int64Value == 0)
            let results = String(decoding: try await Self.send(server, "GET", "job/\(job)/batch/\(batch)/result").body, as: UTF8.self)
            #expect(results.hasPrefix("\"Id\",\"Success\",\"Created\",\"Error\"\n") && results.contains("\"true\",\"false\",\"\""))
            #expect(results.contains("\"true\",\"true\",\"\""))
            let names = try await server.allRecords("SELECT Name FROM Invoice__c ORDER BY Invoice_Number__c").map { $0["Name"] }
            #expect(names == ["Renamed", "New"])
        }
    }

    @Test func failuresAndErrors() async throws {
        try await withServer { server in
            let job = try await Self.createJob(server, ["operation": "insert", "object": "Account", "contentType": "JSON"])
            let unknown = try #require(
                try await Self.send(server, "POST", "job/\(job)/batch", json: [["Nope__c": 1]]).json?["id"]?.stringValue)
            let failed = try await Self.batchDone(server, job: job, batch: unknown)
            #expect(failed["state"] == "Failed" && failed["stateMessage"] == "InvalidBatch : Field name not found : Nope__c")
            let tooMany = JSONValue.array((0...LocalForce.maximumBatchRecords).map { _ in ["Name": "x"] })
            let big = try #require(try await Self.send(server, "POST", "job/\(job)/batch", json: tooMany).json?["id"]?.stringValue)
            #expect(try await Self.batchDone(server, job: job, batch: big)["state"] == "Failed")
            #expect(try await server.allRecords("SELECT Id FROM Account").isEmpty)

            let query = try await Self.createJob(server, ["operation": "query", "object": "Account", "contentType": "JSON"])
            let wrong = try #require(
                try await server.send(
                    "POST", "/services/async/59.0/job/\(query)/batch", rawBody: Data("SELECT Id FROM Contact".utf8), headers: Self.session,
                    authorized: false
                ).json?["id"]?.stringValue)
            let mismatch = try await Self.batchDone(server, job: query, batch: wrong)
            #expect(mismatch["stateMessage"]?.stringValue?.contains("INVALID_TYPE_FOR_OPERATION") == true)

            let aborted = try await Self.send(server, "POST", "job/\(job)", json: ["state": "Aborted"])
            #expect(aborted.json?["state"] == "Aborted")
            // Where no job is known, the request's Content-Type decides, and XML is the default.
            let noJob = try await Self.send(server, "GET", "job/750000000000999AAA", contentType: "application/json")
            #expect(noJob.status == 400 && noJob.json?["exceptionCode"] == "InvalidJob")
            let noJobXML = try await Self.send(server, "GET", "job/750000000000999AAA")
            #expect(try noJobXML.status == 400 && (Self.xml(noJobXML)).childText("exceptionCode") == "InvalidJob")
            let noSession = try await server.send("GET", "/services/async/59.0/job/\(job)", authorized: false)
            #expect(try noSession.status == 401 && (Self.xml(noSession)).childText("exceptionCode") == "InvalidSessionId")
            // A bearer token works too; a version that is no number is no resource.
            #expect(try await server.send("GET", "/services/async/59.0/job/\(job)").status == 200)
            for version in ["1e300", "59.x", "v59.0", "99.0"] {
                #expect(try await server.send("GET", "/services/async/\(version)/job/\(job)").status == 404, "\(version)")
            }
            let badType = try await Self.send(
                server, "POST", "job", json: ["operation": "insert", "object": "Account", "contentType": "ZIP_CSV"])
            #expect(badType.status == 400 && badType.json?["exceptionCode"] == "InvalidJob")
        }
    }
}
