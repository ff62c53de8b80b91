import FastJSON
import Foundation
import NIOConcurrencyHelpers
@_spi(MSyncInternal) import SalesforceWire

/// Bulk API 1.0: `/services/async/XX.X/job…`, with JSON, CSV and XML jobs, as simple-salesforce's
/// `sf.bulk`, salesforce-bulk and jsforce's `bulk` use it. Errors have its own shape:
/// `{"exceptionCode": …, "exceptionMessage": …}`, or `<error>` in XML. Answers are written as
/// ``BulkClassicFormat`` decides.
extension LocalForce {
    /// The most records one batch may hold (Salesforce's limit).
    static let maximumBatchRecords = 10_000

    /// `/services/async/…`: answers every error in the API's own shape.
    func classicRoute(_ request: APIRequest) async -> APIResponse {
        var format = BulkClassicFormat(request: request)
        do {
            return try await classicResource(request, format: &format)
        } catch let error as APIError {
            let code =
                switch error.errorCode {
                case "INVALID_SESSION_ID": "InvalidSessionId"
                case "NOT_FOUND": "InvalidUrl"
                case "METHOD_NOT_ALLOWED": "InvalidUrl"
                case "JSON_PARSER_ERROR": "InvalidJob"
                default: error.errorCode
                }
            return format.error(code, error.message, status: error.status)
        } catch {
            let failure = Self.unexpected(error)
            return format.error("Unknown", failure.message, status: 500)
        }
    }

    /// The resource; `format` becomes the job's once the job is known.
    private func classicResource(_ request: APIRequest, format: inout BulkClassicFormat) async throws -> APIResponse {
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
            guard let jobId = path.first else {
                guard request.method == "POST" else { throw APIError(405, "InvalidUrl", "Unsupported request: GET job") }
                return try await createClassicJob(request, version: version, format: format)
            }
            let job = try await classicJob(jobId)
            format = BulkClassicFormat(job: job, request: request)
            switch (path.count, request.method) {
            case (1, "GET"): return try await classicJobInfo(job, format: format)
            case (1, "POST"): return try await changeClassicJob(job, request, format: format)
            case (2, "POST") where path[1] == "batch": return try await addBatch(job, request, format: format)
            case (2, "GET") where path[1] == "batch":
                let batches = try await database.read { db in try BulkBatch.batches(ofJob: job.id, on: db) }
                return format.batchInfoList(batches.map(\.info))
            case (3, "GET") where path[1] == "batch": return format.batchInfo(try await batch(job, path[2]).info)
            case (4, "GET") where path[1] == "batch" && path[3] == "result":
                return try await batchResult(job, try await batch(job, path[2]), result: nil)
            case (4, "GET") where path[1] == "batch" && path[3] == "request":
                return try await batchRequest(job, try await batch(job, path[2]))
            case (5, "GET") where path[1] == "batch" && path[3] == "result":
                return try await batchResult(job, try await batch(job, path[2]), result: path[4])
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

    private func batch(_ job: BulkJob, _ id: String) async throws -> BulkBatch {
        let id = SalesforceId(id)?.value ?? id
        guard let batch = try await database.read({ db in try BulkBatch.batch(id, on: db) }), batch.jobId == job.id else {
            throw APIError(400, "InvalidBatch", "Unable to find object: \(id)")
        }
        return batch
    }

    private func classicJobInfo(_ job: BulkJob, format: BulkClassicFormat, status: Int = 200) async throws -> APIResponse {
        let batches = try await database.read { db in try BulkBatch.batches(ofJob: job.id, on: db) }
        return format.jobInfo(BulkBatch.jobInfo(job, batches: batches), status: status)
    }

    /// A job's info from a JSON object or an XML `<jobInfo>` (its elements as strings).
    private static func jobBody(_ request: APIRequest) throws -> [String: JSONValue] {
        guard BulkClassicFormat.isXML(request) else { return try request.jsonObject() }
        let root: BulkXMLElement
        do {
            root = try BulkXMLReader.parse(request.body)
        } catch {
            throw APIError(400, "InvalidJob", error.message)
        }
        guard root.name == "jobInfo" else { throw APIError(400, "InvalidJob", "Expected a jobInfo element, found \(root.name)") }
        return Dictionary(root.children.map { ($0.name, JSONValue.string($0.text)) }, uniquingKeysWith: { first, _ in first })
    }

    private func createClassicJob(_ request: APIRequest, version: String, format: BulkClassicFormat) async throws -> APIResponse {
        let body = try Self.jobBody(request)
        let operation = body["operation"]?.stringValue ?? ""
        guard Self.ingestOperations.contains(operation) || operation == "query" || operation == "queryAll" else {
            throw APIError(400, "InvalidJob", "Invalid operation: \(operation)")
        }
        guard let objectName = body["object"]?.stringValue, let object = schema.object(named: objectName) else {
            throw APIError(400, "InvalidJob", "Unable to find object: \(body["object"]?.stringValue ?? "null")")
        }
        let contentType = body["contentType"]?.stringValue ?? "CSV"
        guard ["JSON", "CSV", "XML"].contains(contentType) else {
            throw APIError(400, "InvalidJob", "Unsupported content type: \(contentType) (LocalForce takes JSON, CSV and XML)")
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
        return format.jobInfo(BulkBatch.jobInfo(job, batches: []), status: 201)
    }

    /// `POST job/{id}` with `{"state": "Closed" | "Aborted"}` (or its XML `<jobInfo>`); an
    /// abort leaves queued batches NotProcessed.
    private func changeClassicJob(_ job: BulkJob, _ request: APIRequest, format: BulkClassicFormat) async throws -> APIResponse {
        let wanted = try Self.jobBody(request)["state"]?.stringValue ?? ""
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
        guard changed, let changedJob = try await database.read({ db in try BulkStore.job(job.id, on: db) }) else {
            throw APIError(400, "InvalidJobState", "Cannot change the state of a job that is \(job.state) to \(wanted)")
        }
        return try await classicJobInfo(changedJob, format: format)
    }

    /// `POST job/{id}/batch`: records (a JSON array, CSV or XML `<sObjects>`) or, for a query
    /// job, the SOQL.
    private func addBatch(_ job: BulkJob, _ request: APIRequest, format: BulkClassicFormat) async throws -> APIResponse {
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
        return format.batchInfo(batch.info, status: 201)
    }
}
