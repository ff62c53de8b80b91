import FastJSON
import Foundation
import LocalForceHTTP
import Testing

@testable import LocalForce

/// Bulk API 2.0 ingest jobs over HTTP: every operation, the CSV options, results, and the
/// records written through the same checks and events as REST.
@Suite struct BulkIngestTests {
    @Test func insertWithResultsAcrossTwoUploads() async throws {
        try await withServer { server in
            let bulk = BulkClient(server: server)
            let id = try await bulk.createIngest("Account", "insert")
            #expect(
                try await bulk.upload(id, "Name,Industry,NumberOfEmployees\nAcme,Energy,10\n\"Quoted, \"\"Inc\"\"\",#N/A,x\n").status == 201
            )
            // A second upload starts with the same header; its last line has no line break.
            #expect(try await bulk.upload(id, "Name,Industry,NumberOfEmployees\n,Energy,3\n\"Multi\nLine\",Media,5").status == 201)
            let other = try await bulk.upload(id, "Name,Industry\nX,Y\n")
            #expect(other.status == 400 && other.errorCode == "INVALIDBATCH")
            #expect(try await bulk.close(id).json?["state"] == "UploadComplete")
            let info = try await bulk.finished(id)
            #expect(info["state"] == "JobComplete" && info["jobType"] == "V2Ingest")
            #expect(info["numberRecordsProcessed"]?.int64Value == 4 && info["numberRecordsFailed"]?.int64Value == 2)
            #expect(info["retries"]?.int64Value == 0 && info["totalProcessingTime"] != nil)

            let success = try await bulk.text("jobs/ingest/\(id)/successfulResults").split(
                separator: "\n", omittingEmptySubsequences: false)
            #expect(success.first == #""sf__Id","sf__Created","Name","Industry","NumberOfEmployees""#)
            #expect(success.count == 5 && success.last == "") // header, Acme, two lines of "Multi\nLine", end
            let failed = try await bulk.text("jobs/ingest/\(id)/failedResults")
            #expect(
                failed.contains(
                    ##""","INVALID_TYPE_ON_FIELD_IN_RECORD:Employees: value not of required type: x:NumberOfEmployees --","Quoted, ""Inc""","#N/A","x""##
                ))
            #expect(failed.contains(#""","REQUIRED_FIELD_MISSING:Required fields are missing: [Name]:Name --","","Energy","3""#))
            // Nothing is left unprocessed: the header only (both spellings clients use).
            #expect(try await bulk.text("jobs/ingest/\(id)/unprocessedrecords") == "\"Name\",\"Industry\",\"NumberOfEmployees\"\n")
            #expect(try await bulk.text("jobs/ingest/\(id)/unprocessedRecords") == "\"Name\",\"Industry\",\"NumberOfEmployees\"\n")

            let records = try await server.allRecords("SELECT Name, Industry, NumberOfEmployees, CreatedById FROM Account ORDER BY Name")
            #expect(records.map { $0["Name"] } == ["Acme", "Multi\nLine"])
            #expect(records.first?["NumberOfEmployees"]?.int64Value == 10 && records.first?["CreatedById"] != nil)
        }
    }

    @Test func updateUpsertDeleteAndHardDelete() async throws {
        try await withServer { server in
            let bulk = BulkClient(server: server)
            let first = try await server.create("Invoice__c", ["Name": "One", "Invoice_Number__c": "INV-1", "Total__c": 5])
            let second = try await server.create("Invoice__c", ["Name": "Two", "Invoice_Number__c": "INV-2"])
            let (_, update) = try await bulk.load(
                "Invoice__c", "update", "Id,Total__c,Due_Date__c\n\(first),12.5,2026-01-31\n\(second),#N/A,\nnot-an-id,1,\n")
            #expect(update["numberRecordsProcessed"]?.int64Value == 3 && update["numberRecordsFailed"]?.int64Value == 1)
            var rows = try await server.allRecords(
                "SELECT Invoice_Number__c, Total__c, Due_Date__c FROM Invoice__c ORDER BY Invoice_Number__c")
            #expect(rows.map { $0["Total__c"] } == [.double(12.5), .null] && rows.first?["Due_Date__c"] == "2026-01-31")

            let (upsertId, upsert) = try await bulk.load(
                "Invoice__c", "upsert", "Invoice_Number__c,Name\nINV-2,Two again\nINV-3,Three\n",
                options: ["externalIdFieldName": "Invoice_Number__c"])
            #expect(upsert["state"] == "JobComplete" && upsert["numberRecordsFailed"]?.int64Value == 0)
            let created = try await bulk.text("jobs/ingest/\(upsertId)/successfulResults")
            #expect(created.contains(#","false","INV-2","Two again""#) && created.contains(#","true","INV-3","Three""#))

            // Children by their parent's external id (a relationship column).
            let (_, lines) = try await bulk.load(
                "Invoice_Line__c", "insert", "Name,Invoice__r.Invoice_Number__c,Line_Key__c\nL1,INV-3,K1\nL2,INV-404,K2\n")
            #expect(lines["numberRecordsFailed"]?.int64Value == 1)
            let line = try await server.allRecords("SELECT Name, Invoice__r.Invoice_Number__c FROM Invoice_Line__c")
            #expect(line.count == 1 && line.first?["Invoice__r"]?["Invoice_Number__c"] == "INV-3")

            let (_, deleted) = try await bulk.load("Invoice__c", "delete", "Id\n\(first)\n\(first)\n")
            #expect(deleted["numberRecordsProcessed"]?.int64Value == 2 && deleted["numberRecordsFailed"]?.int64Value == 1)
            let (_, hard) = try await bulk.load("Invoice__c", "hardDelete", "Id\n\(second)\n")
            #expect(hard["numberRecordsFailed"]?.int64Value == 0)
            rows = try await server.allRecords("SELECT Invoice_Number__c FROM Invoice__c")
            #expect(rows.map { $0["Invoice_Number__c"] } == ["INV-3"])
            // The master-detail line went with nothing: its invoice INV-3 lives.
            #expect(try await server.allRecords("SELECT Id FROM Invoice_Line__c").count == 1)
        }
    }

    @Test func delimitersAndLineEndings() async throws {
        try await withServer { server in
            let bulk = BulkClient(server: server)
            for (name, separator, ending, lineBreak) in [
                ("TAB", "\t", "CRLF", "\r\n"), ("PIPE", "|", "LF", "\n"), ("SEMICOLON", ";", "LF", "\n"), ("CARET", "^", "CRLF", "\r\n"),
                ("BACKQUOTE", "`", "LF", "\n"), ("COMMA", ",", "CRLF", "\r\n"),
            ] {
                let csv = ["Name\(separator)Industry", "\(name) Co\(separator)Energy", "\"\(name)\(separator)Two\"\(separator)Media", ""]
                    .joined(separator: lineBreak)
                let (id, info) = try await bulk.load(
                    "Account", "insert", csv, options: ["columnDelimiter": .string(name), "lineEnding": .string(ending)])
                #expect(info["state"] == "JobComplete" && info["numberRecordsFailed"]?.int64Value == 0, "\(name)")
                #expect(info["columnDelimiter"] == .string(name) && info["lineEnding"] == .string(ending))
                let results = try await bulk.text("jobs/ingest/\(id)/successfulResults")
                #expect(
                    results.hasPrefix("\"sf__Id\"\(separator)\"sf__Created\"\(separator)\"Name\"\(separator)\"Industry\"\(lineBreak)"),
                    "\(name)")
            }
            #expect(try await server.allRecords("SELECT Id FROM Account").count == 12)
            let bad = try await server.send(
                "POST", "jobs/ingest", json: ["object": "Account", "operation": "insert", "columnDelimiter": "SPACE"])
            #expect(bad.status == 400 && bad.errorCode == "INVALIDJOB")
        }
    }

    @Test func stateTransitionsAndTheirErrors() async throws {
        try await withServer { server in
            let bulk = BulkClient(server: server)
            let id = try await bulk.createIngest("Account", "insert")
            let deleteOpen = try await server.send("DELETE", "jobs/ingest/\(id)")
            #expect(deleteOpen.status == 400 && deleteOpen.errorCode == "INVALIDJOBSTATE")
            let wrong = try await server.send("PATCH", "jobs/ingest/\(id)", json: ["state": "JobComplete"])
            #expect(wrong.status == 400 && wrong.errorCode == "INVALIDJOBSTATE")
            let aborted = try await server.send("PATCH", "jobs/ingest/\(id)", json: ["state": "Aborted"])
            #expect(aborted.status == 200 && aborted.json?["state"] == "Aborted")
            let late = try await bulk.upload(id, "Name\nLate\n")
            #expect(late.status == 409 && late.errorCode == "INVALIDJOBSTATE")
            let again = try await server.send("PATCH", "jobs/ingest/\(id)", json: ["state": "Aborted"])
            #expect(again.errorCode == "INVALIDJOBSTATE" && again.message == "Aborting already Aborted Job not allowed")
            #expect(try await server.send("DELETE", "jobs/ingest/\(id)").status == 204)
            // An aborted job's uploads come back unprocessed, each upload's header dropped, and an
            // upload ending without a line break kept apart from the next one.
            let unrun = try await bulk.createIngest("Account", "insert")
            #expect(try await bulk.upload(unrun, "Name\nFirst").status == 201)
            #expect(try await bulk.upload(unrun, "Name\nSecond\n").status == 201)
            #expect(try await server.send("PATCH", "jobs/ingest/\(unrun)", json: ["state": "Aborted"]).status == 200)
            #expect(try await bulk.text("jobs/ingest/\(unrun)/unprocessedrecords") == "\"Name\"\nFirst\nSecond\n")
            #expect(try await server.send("GET", "jobs/ingest/\(id)").status == 404)
            #expect(try await server.send("GET", "jobs/ingest/750000000000099AAA").status == 404)

            let (done, _) = try await bulk.load("Account", "insert", "Name\nDone\n")
            let abortDone = try await server.send("PATCH", "jobs/ingest/\(done)", json: ["state": "Aborted"])
            #expect(abortDone.status == 400 && abortDone.message == "Aborting already Completed Job not allowed")

            // Whole-job failures: a field the object does not have, CSV that cannot be read.
            let (_, unknown) = try await bulk.load("Account", "insert", "Name,Nope__c\nA,B\n")
            #expect(unknown["state"] == "Failed" && unknown["errorMessage"] == "InvalidBatch : Field name not found : Nope__c")
            let (brokenId, broken) = try await bulk.load("Account", "insert", "Name\nGood\n\"Unterminated\n")
            #expect(
                broken["state"] == "Failed"
                    && broken["errorMessage"]?.stringValue?.hasPrefix("InvalidBatch : Unterminated quoted field") == true)
            #expect(broken["numberRecordsProcessed"]?.int64Value == 1)
            // What was not processed comes back as it was uploaded.
            #expect(try await bulk.text("jobs/ingest/\(brokenId)/unprocessedrecords") == "\"Name\"\n\"Unterminated\n")

            let noKey = try await server.send("POST", "jobs/ingest", json: ["object": "Account", "operation": "upsert"])
            #expect(noKey.status == 400 && noKey.errorCode == "INVALIDJOB")
            let notExternal = try await server.send(
                "POST", "jobs/ingest", json: ["object": "Account", "operation": "upsert", "externalIdFieldName": "Name"])
            #expect(notExternal.status == 400)
            let unknownObject = try await server.send("POST", "jobs/ingest", json: ["object": "Nope", "operation": "insert"])
            #expect(unknownObject.status == 400 && unknownObject.errorCode == "INVALIDENTITY")
            let empty = try await bulk.upload(try await bulk.createIngest("Account", "insert"), "")
            #expect(empty.status == 400 && empty.errorCode == "INVALIDBATCH")
            let binary = try await server.send(
                "PUT", "jobs/ingest/\(try await bulk.createIngest("Account", "insert"))/batches",
                rawBody: Data([0x4E, 0x0A, 0xFF, 0xFE, 0x0A]))
            #expect(binary.status == 400 && binary.errorCode == "INVALIDBATCH")

            // A header alone, without a line break, is no record.
            let (_, headerOnly) = try await bulk.load("Account", "insert", "Name")
            #expect(headerOnly["state"] == "JobComplete" && headerOnly["numberRecordsProcessed"]?.int64Value == 0)

            let list = try await server.send("GET", "jobs/ingest")
            #expect(list.json?["done"] == true && (list.json?["records"]?.arrayValue?.count ?? 0) >= 5)
            #expect(list.json?["records"]?.arrayValue?.allSatisfy { $0["jobType"] == "V2Ingest" } == true)
        }
    }

    /// A job is its creator's: another user's token finds nothing (404, and not in the list);
    /// the API user (the static token) sees every job.
    @Test func jobsBelongToTheirCreator() async throws {
        let auth = try AuthConfiguration(
            connectedApps: [AuthConfiguration.ConnectedApp(clientId: "bulk-app", clientSecret: "bulk-secret")],
            users: [AuthConfiguration.User(username: "loader@example.com", password: "loader-pass")])
        let localForce = try await LocalForce(database: try await TestServer.database(), token: TestServer.token, auth: auth)
        let server = TestServer(server: try await LocalForceServer.start(localForce))
        defer { Task { await server.stop() } }
        let form = "grant_type=password&client_id=bulk-app&client_secret=bulk-secret&username=loader%40example.com&password=loader-pass"
        let grant = try await server.send(
            "POST", "/services/oauth2/token", rawBody: Data(form.utf8), headers: ["Content-Type": "application/x-www-form-urlencoded"],
            authorized: false)
        let token = try #require(grant.json?["access_token"]?.stringValue)
        let loader = ["Authorization": "Bearer \(token)"]
        let mine = try #require(
            try await server.send(
                "POST", "jobs/ingest", json: ["object": "Account", "operation": "insert"], headers: loader, authorized: false
            ).json?["id"]?.stringValue)
        let admins = try await BulkClient(server: server).createIngest("Account", "insert")
        #expect(try await server.send("GET", "jobs/ingest/\(admins)", headers: loader, authorized: false).status == 404)
        #expect(try await server.send("GET", "jobs/ingest/\(mine)", headers: loader, authorized: false).status == 200)
        let listed = try await server.send("GET", "jobs/ingest", headers: loader, authorized: false)
        #expect(listed.json?["records"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [mine])
        #expect(try await server.send("GET", "jobs/ingest/\(mine)").status == 200)
        let all = try await server.send("GET", "jobs/ingest")
        #expect(all.json?["records"]?.arrayValue?.count == 2)
    }

    @Test func limitsAreEnforced() async throws {
        let localForce = try await LocalForce(
            database: try await TestServer.database(), token: TestServer.token,
            bulk: BulkOptions(maximumUploadSize: 1000, maximumRecordsPerJob: 3, recordsPerTransaction: 2))
        let server = TestServer(server: try await LocalForceServer.start(localForce))
        defer { Task { await server.stop() } }
        let bulk = BulkClient(server: server)
        let big = try await bulk.upload(
            try await bulk.createIngest("Account", "insert"), "Name\n" + String(repeating: "Acme\n", count: 300))
        #expect(big.status == 413 && big.errorCode == "REQUEST_TOO_LARGE")
        let (_, over) = try await bulk.load("Account", "insert", "Name\nA\nB\nC\nD\nE\n")
        #expect(over["state"] == "Failed" && over["errorMessage"]?.stringValue?.hasPrefix("ExceededQuota") == true)
        #expect(over["numberRecordsProcessed"]?.int64Value == 3)
        #expect(try await server.allRecords("SELECT Id FROM Account").count == 3)
    }

    /// A job and its data are deleted seven days after it was created, as on Salesforce (here
    /// by the next job created: a server whose clock is eight days on, on the same file).
    @Test func jobsExpireAfterSevenDays() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bulk-expiry-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("org.sqlite").path
        let today = TestServer(
            server: try await LocalForceServer.start(
                try await LocalForce(database: try SQLiteDatabase(path: path), token: TestServer.token)))
        let old = try await BulkClient(server: today).createIngest("Account", "insert")
        _ = try await BulkClient(server: today).upload(old, "Name\nKept a week\n")
        await today.stop()
        let later = TestServer(
            server: try await LocalForceServer.start(
                try await LocalForce(
                    database: try SQLiteDatabase(path: path), token: TestServer.token, clockOffset: .seconds(8 * 86_400))))
        defer { Task { await later.stop() } }
        #expect(try await later.send("GET", "jobs/ingest/\(old)").status == 200)
        _ = try await BulkClient(server: later).createIngest("Account", "insert")
        #expect(try await later.send("GET", "jobs/ingest/\(old)").status == 404)
    }

    /// Bytes that are no UTF-8 (48 MB of continuation bytes after the header) are refused at the
    /// first chunk that holds them: the upload costs time linear in its size (each byte was
    /// rescanned on every piece before: 8.5 s for 16 MB, growing with the square, so about 75 s
    /// for this one; linear, it takes a few seconds, some 15 in the loaded full suite).
    @Test func anUploadThatIsNotUTF8IsRefusedAtOnce() async throws {
        try await withServer { server in
            let bulk = BulkClient(server: server)
            let job = try await bulk.createIngest("Account", "insert")
            let started = ContinuousClock.now
            let refused = try await server.send(
                "PUT", "jobs/ingest/\(job)/batches", rawBody: Data("Name\n".utf8) + Data(repeating: 0x80, count: 48 << 20),
                headers: ["Content-Type": "text/csv"])
            #expect(refused.status == 400 && refused.errorCode == "INVALIDBATCH", "\(refused.status)")
            #expect(ContinuousClock.now - started < .seconds(45))
        }
    }

    /// Bulk writes publish change events as REST writes do, and go through fault injection:
    /// an injected fault rolls a transaction back and retries it (`retries`).
    @Test func changeEventsAndInjectedFaults() async throws {
        try await withServer { server in
            let localForce = server.server.localForce
            let processing: @Sendable (APIRequest) -> Bool = { $0.segments.last == "processing" }
            await localForce.faults.schedule(.serverError, count: 2, matching: processing)
            let (_, info) = try await BulkClient(server: server).load("Account", "insert", "Name\nOne\nTwo\n")
            #expect(info["state"] == "JobComplete" && info["retries"]?.int64Value == 2)
            #expect(try await server.allRecords("SELECT Id FROM Account").count == 2)
            let events = try await localForce.database.read { db in
                try db.scalar("SELECT COUNT(*) FROM lf_events WHERE channel = '/data/AccountChangeEvent'")?.integer
            }
            #expect(events == 2)
        }
    }
}
