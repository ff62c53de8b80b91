import FastJSON
import Foundation
import NIOConcurrencyHelpers
@_spi(MSyncInternal) import SalesforceWire

/// Bulk API 1.0: `/services/async/XX.X/job…`, with JSON and CSV jobs, as simple-salesforce's
/// `sf.bulk` and jsforce's `bulk` use it. Errors have its own shape:
/// `{"exceptionCode": …, "exceptionMessage": …}`.
extension LocalForce {
    /// The most records one batch may hold (Salesforce's limit).
    static let maximumBatchRecords = 10_000

    private static func classicError(_ code: String, _ message: String, status: Int = 400) -> APIResponse {
        .json(["exceptionCode": .string(code), "exceptionMessage": .string(message)], status: status)
    }

    /// `/services/async/…`: answers every error in the API's own shape.
    func classicRoute(_ request: APIRequest) async -> APIResponse {
        do {
            return try await classicResource(request)
        } catch let error as APIError {
            let code =
                switch error.errorCode {
                case "INVALID_SESSION_ID": "InvalidSessionId"
                case "NOT_FOUND": "InvalidUrl"
                case "METHOD_NOT_ALLOWED": "InvalidUrl"
                case "JSON_PARSER_ERROR": "InvalidJob"
                default: error.errorCode
                }
            return Self.classicError(code, error.message, status: error.status)
        } catch {
            let failure = Self.unexpected(error)
            return Self.classicError("Unknown", failure.message, status: 500)
        }
    }

    private func classicResource(_ request: APIRequest) async throws -> APIResponse {
        let segments = request.segments
        guard let user = authenticatedUser(request) else {
            throw APIError(401, "INVALID_SESSION_ID", "Invalid session id")
        }
        // `59.0` (no `v`, unlike REST).
        let number = segments.count > 2 ? segments[2].split(separator: ".", omittingEmptySubsequences: false) : []
        guard segments.count >= 4, segments[3] == "job", number.count <= 2, let major = number.first.flatMap({ Int($0) }),
            Self.versions.contains(major), number.count == 1 || number[1].allSatisfy(\.isNumber)
        else { throw APIError.notFound }
        let version = "\(major).0"
        let path = Array(segments.dropFirst(4))
        // A client polling any process of a shared database restarts the processing of a batch
        // whose process went away.
        bulkWorker.kick()
        return try await Self.$sessionUserId.withValue(user) {
            switch (path.count, request.method) {
            case (0, "POST"): return try await createClassicJob(request, version: version)
            case (1, "GET"): return try await classicJobInfo(path[0])
            case (1, "POST"): return try await changeClassicJob(path[0], request)
            case (2, "POST") where path[1] == "batch": return try await addBatch(path[0], request)
            case (2, "GET") where path[1] == "batch":
                let job = try await classicJob(path[0])
                let batches = try await database.read { db in try BulkBatch.batches(ofJob: job.id, on: db) }
                return .json(["batchInfo": .array(batches.map(\.info))])
            case (3, "GET") where path[1] == "batch": return .json(try await batch(path[0], path[2]).info)
            case (4, "GET") where path[1] == "batch" && path[3] == "result": return try await batchResult(path[0], path[2], result: nil)
            case (4, "GET") where path[1] == "batch" && path[3] == "request": return try await batchRequest(path[0], path[2])
            case (5, "GET") where path[1] == "batch" && path[3] == "result": return try await batchResult(path[0], path[2], result: path[4])
            default: throw APIError(405, "InvalidUrl", "Unsupported request: \(request.method) \(segments.joined(separator: "/"))")
            }
        }
    }

    private func classicJob(_ id: String) async throws -> BulkJob {
        let id = SalesforceId(id)?.value ?? id
        guard let job = try await database.read({ db in try BulkStore.job(id, on: db) }), job.kind == .classic, seesJob(job) else {
            throw APIError(400, "InvalidJob", "Unable to find object: \(id)")
        }
        return job
    }

    private func batch(_ jobId: String, _ id: String) async throws -> BulkBatch {
        let job = try await classicJob(jobId)
        let id = SalesforceId(id)?.value ?? id
        guard let batch = try await database.read({ db in try BulkBatch.batch(id, on: db) }), batch.jobId == job.id else {
            throw APIError(400, "InvalidBatch", "Unable to find object: \(id)")
        }
        return batch
    }

    private func classicJobInfo(_ id: String, status: Int = 200) async throws -> APIResponse {
        let job = try await classicJob(id)
        let batches = try await database.read { db in try BulkBatch.batches(ofJob: job.id, on: db) }
        return .json(BulkBatch.jobInfo(job, batches: batches), status: status)
    }

    private func createClassicJob(_ request: APIRequest, version: String) async throws -> APIResponse {
        let body = try request.jsonObject()
        let operation = body["operation"]?.stringValue ?? ""
        guard Self.ingestOperations.contains(operation) || operation == "query" || operation == "queryAll" else {
            throw APIError(400, "InvalidJob", "Invalid operation: \(operation)")
        }
        guard let objectName = body["object"]?.stringValue, let object = schema.object(named: objectName) else {
            throw APIError(400, "InvalidJob", "Unable to find object: \(body["object"]?.stringValue ?? "null")")
        }
        let contentType = body["contentType"]?.stringValue ?? "CSV"
        guard contentType == "JSON" || contentType == "CSV" else {
            throw APIError(400, "InvalidJob", "Unsupported content type: \(contentType) (LocalForce takes JSON and CSV)")
        }
        var externalId: String?
        if operation == "upsert" {
            let name = body["externalIdFieldName"]?.stringValue ?? ""
            guard let field = object.field(named: name), field.name == "Id" || field.externalId else {
                throw APIError(400, "InvalidJob", "External ID was blank or not an External ID field for \(object.name): \(name)")
            }
            externalId = field.name
        }
        // simple-salesforce sends 0 (Parallel) or 1 (Serial); Salesforce's docs, the names.
        let concurrency: String =
            switch body["concurrencyMode"] {
            case .int(1), .string("Serial"): "Serial"
            default: "Parallel"
            }
        let (userId, now, externalIdField) = (requestUserId(), requestClock().now, externalId)
        let job = try await database.write { db -> BulkJob in
            let sequence = try StorageSchema.next("bulk:jobs", on: db)
            var job = BulkJob(
                id: SalesforceId(prefix: "750", sequence: UInt64(max(0, sequence))).value, kind: .classic, operation: operation,
                object: object.name, externalIdField: externalIdField, state: "Open", format: .comma, apiVersion: version,
                createdBy: userId, created: now, query: nil)
            job.contentType = contentType
            job.concurrencyMode = concurrency
            try BulkStore.insert(job, on: db)
            return job
        }
        return .json(BulkBatch.jobInfo(job, batches: []), status: 201)
    }

    /// `POST job/{id}` with `{"state": "Closed" | "Aborted"}`; an abort leaves queued batches NotProcessed.
    private func changeClassicJob(_ id: String, _ request: APIRequest) async throws -> APIResponse {
        let job = try await classicJob(id)
        let wanted = try request.jsonObject()["state"]?.stringValue ?? ""
        guard wanted == "Closed" || wanted == "Aborted" else {
            throw APIError(400, "InvalidJobState", "Invalid state: \(wanted) (use Closed or Aborted)")
        }
        let now = requestClock().now
        let changed = try await database.write { db -> Bool in
            let from: Set<String> = wanted == "Closed" ? ["Open"] : ["Open", "Closed"]
            guard try BulkStore.setState(job.id, to: wanted, from: from, now: now, on: db) else { return false }
            if wanted == "Aborted" {
                let p = db.dialect.placeholder
                try db.execute(
                    "UPDATE lf_bulk_batches SET state = 'NotProcessed', state_message = 'The job was aborted', modstamp = \(p(1)) WHERE job_id = \(p(2)) AND state = 'Queued'",
                    [.integer(now), .text(job.id)])
            }
            return true
        }
        guard changed else {
            throw APIError(400, "InvalidJobState", "Cannot change the state of a job that is \(job.state) to \(wanted)")
        }
        return try await classicJobInfo(job.id)
    }

    /// `POST job/{id}/batch`: records (JSON array or CSV) or, for a query job, the SOQL.
    private func addBatch(_ id: String, _ request: APIRequest) async throws -> APIResponse {
        let job = try await classicJob(id)
        guard job.state == "Open" else {
            throw APIError(
                400, "InvalidJobState", "Failed to create batch, since the Job is not Open. Current job state is '\(job.state)'")
        }
        guard let text = String(validating: request.body, as: UTF8.self), !text.utf8.contains(0) else {
            throw APIError(400, "InvalidBatch", "The batch is not UTF-8 text (or holds a NUL character)")
        }
        let now = requestClock().now
        let batch = try await database.write { db -> BulkBatch in
            let sequence = try StorageSchema.next("bulk:batches", on: db)
            let batch = BulkBatch(id: SalesforceId(prefix: "751", sequence: UInt64(max(0, sequence))).value, jobId: job.id, created: now)
            try BulkBatch.insert(batch, on: db)
            try BulkStore.append(batch.id, part: "request", body: text, on: db)
            return batch
        }
        bulkWorker.kick()
        return .json(batch.info, status: 201)
    }

    private func batchRequest(_ jobId: String, _ id: String) async throws -> APIResponse {
        let batch = try await batch(jobId, id)
        let job = try await classicJob(jobId)
        let body = try await database.read { db in try BulkStore.chunk(batch.id, part: "request", from: 0, on: db)?.body } ?? []
        return APIResponse(
            status: 200, headers: ["Content-Type": job.contentType == "JSON" ? APIResponse.contentType : "text/csv"], body: body)
    }

    /// A batch's results: a DML batch's save results; a query batch's list of result ids, or
    /// (`result`) one of its result sets.
    private func batchResult(_ jobId: String, _ id: String, result: String?) async throws -> APIResponse {
        let batch = try await batch(jobId, id)
        let job = try await classicJob(jobId)
        guard batch.state == "Completed" || (batch.state == "Failed" && result == nil) else {
            throw APIError(400, "InvalidBatch", "Batch not completed: its state is \(batch.state)")
        }
        let json = job.contentType == "JSON"
        let headers = ["Content-Type": json ? APIResponse.contentType : "text/csv"]
        let isQuery = job.operation == "query" || job.operation == "queryAll"
        if isQuery, result == nil {
            let ids = try await database.read { db in
                try db.rows(
                    "SELECT part FROM lf_bulk_data WHERE job_id = \(db.dialect.placeholder(1)) AND part LIKE 'result:%' ORDER BY part",
                    [.text(batch.id)]
                ).compactMap { $0.first?.text.map { String($0.dropFirst("result:".count)) } }
            }
            if json { return .json(.array(ids.map(JSONValue.string))) }
            let items = ids.map { "<result>\($0)</result>" }.joined()
            return APIResponse(
                status: 200, headers: ["Content-Type": "application/xml"],
                body: Array(
                    #"<?xml version="1.0" encoding="UTF-8"?><result-list xmlns="http://www.force.com/2009/06/asyncapi/dataload">\#(items)</result-list>"#
                        .utf8))
        }
        let part = isQuery ? "result:\(result ?? "")" : "result"
        guard !isQuery || result != nil,
            try await database.read({ db in try BulkStore.chunk(batch.id, part: part, from: 0, on: db) }) != nil
        else {
            throw APIError(400, "InvalidBatch", "Unable to find the result \(result ?? "")")
        }
        let database = self.database
        let next = NIOLockedValueBox<Int64>(0)
        return APIResponse(
            status: 200, headers: headers,
            bodyStream: BodyStream {
                let number = next.withLockedValue { $0 }
                guard let chunk = try await database.read({ db in try BulkStore.chunk(batch.id, part: part, from: number, on: db) })
                else { return nil }
                next.withLockedValue { $0 = chunk.number + 1 }
                return chunk.body
            })
    }
}
