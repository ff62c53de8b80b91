import FastJSON
import Foundation
import SOQL
@_spi(MSyncInternal) import SalesforceWire

/// Bulk API 2.0: `/services/data/vXX.X/jobs/ingest` and `/jobs/query`.
extension LocalForce {
    static let ingestOperations: Set<String> = ["insert", "update", "upsert", "delete", "hardDelete"]

    static func invalidJobState(_ message: String) -> APIError { APIError(400, "INVALIDJOBSTATE", message) }

    /// `/jobs/…` after the version.
    func bulkRoute(_ context: RequestContext) async throws -> APIResponse {
        let path = context.path
        guard path.count >= 2, let kind = BulkJob.Kind(rawValue: path[1]), kind != .classic else { throw APIError.notFound }
        let method = context.request.method
        // A client polling any process of a shared database restarts the processing of a job
        // whose process went away.
        bulkWorker.kick()
        switch (path.count, method) {
        case (2, "POST"): return kind == .ingest ? try await createIngestJob(context) : try await createQueryJob(context)
        case (2, "GET"): return try await listJobs(kind, context)
        case (3, "GET"): return .json(try await bulkJob(path[2], kind: kind).info(full: true))
        case (3, "PATCH"): return try await changeJobState(path[2], kind: kind, context)
        case (3, "DELETE"): return try await deleteJob(path[2], kind: kind)
        case (4, "PUT") where kind == .ingest && path[3] == "batches": return try await uploadJobData(path[2], context)
        case (4, "GET") where kind == .ingest: return try await ingestResults(path[2], part: path[3])
        case (4, "GET") where kind == .query && path[3] == "results": return try await queryResults(path[2], context)
        case (4, "GET") where kind == .query && path[3].lowercased() == "resultpages": return try await resultPages(path[2], context)
        case (2, _), (3, _), (4, _):
            throw APIError(405, "METHOD_NOT_ALLOWED", "HTTP Method '\(method)' not allowed.")
        default: throw APIError.notFound
        }
    }

    /// Whether a request's body is read as it arrives: a Bulk upload.
    package func streamsBody(_ request: APIRequest) -> Bool {
        let segments = request.segments
        return request.method == "PUT" && segments.count == 7 && segments[0] == "services" && segments[1] == "data"
            && segments[3] == "jobs" && segments[4] == "ingest" && segments[6] == "batches"
    }

    func bulkJob(_ id: String, kind: BulkJob.Kind) async throws -> BulkJob {
        let id = SalesforceId(id)?.value ?? id
        guard let job = try await database.read({ db in try BulkStore.job(id, on: db) }), job.kind == kind, seesJob(job) else {
            throw APIError.notFound
        }
        return job
    }

    /// Whether the request's user sees a job: its creator does, and the API user (the static
    /// token, the org's administrator) sees every job, as "View All Data" does.
    func seesJob(_ job: BulkJob) -> Bool {
        requestUserId() == userId || job.createdBy == requestUserId()
    }

    /// The user whose jobs a list shows: nil (every user's) for the API user.
    var jobOwnerFilter: String? { requestUserId() == userId ? nil : requestUserId() }

    private func newJob(
        kind: BulkJob.Kind, operation: String, object: String, externalId: String?, format: CSVFormat, query: String?, version: String
    )
        async throws -> BulkJob
    {
        let (userId, now) = (requestUserId(), requestClock().now)
        let job = try await database.write { db -> BulkJob in
            let sequence = try StorageSchema.next("bulk:jobs", on: db)
            let id = SalesforceId(prefix: "750", sequence: UInt64(max(0, sequence))).value
            let job = BulkJob(
                id: id, kind: kind, operation: operation, object: object, externalIdField: externalId,
                state: kind == .ingest ? "Open" : "UploadComplete", format: format, apiVersion: version, createdBy: userId,
                created: now, query: query)
            try BulkStore.insert(job, on: db)
            return job
        }
        if kind == .query { bulkWorker.kick() }
        return job
    }

    private func createIngestJob(_ context: RequestContext) async throws -> APIResponse {
        let body = try context.request.jsonObject()
        guard let objectName = body["object"]?.stringValue, let object = schema.object(named: objectName) else {
            throw APIError(400, "INVALIDENTITY", "Entity '\(body["object"]?.stringValue ?? "null")' is not supported by the Bulk API.")
        }
        guard let operation = body["operation"]?.stringValue, Self.ingestOperations.contains(operation) else {
            throw APIError(
                400, "INVALIDJOB",
                "InvalidJob : Invalid operation '\(body["operation"]?.stringValue ?? "null")': use insert, update, upsert, delete or hardDelete"
            )
        }
        if let type = body["contentType"]?.stringValue, type != "CSV" {
            throw APIError(400, "INVALIDJOB", "InvalidJob : contentType \(type) is not supported: Bulk API 2.0 takes CSV")
        }
        var externalId: String?
        if operation == "upsert" {
            guard let name = body["externalIdFieldName"]?.stringValue else {
                throw APIError(
                    400, "INVALIDJOB", "InvalidJob : External ID was blank for \(object.name). An External ID must be specified for upsert."
                )
            }
            guard let field = object.field(named: name), field.name == "Id" || field.externalId else {
                throw APIError(
                    400, "INVALIDJOB", "InvalidJob : Field \(name) is not an External ID or Id field of \(object.name)")
            }
            externalId = field.name
        }
        let format = try CSVFormat(delimiter: body["columnDelimiter"]?.stringValue, lineEnding: body["lineEnding"]?.stringValue)
        let job = try await newJob(
            kind: .ingest, operation: operation, object: object.name, externalId: externalId, format: format, query: nil,
            version: context.version)
        return .json(job.info(full: false))
    }

    private func createQueryJob(_ context: RequestContext) async throws -> APIResponse {
        let body = try context.request.jsonObject()
        let operation = body["operation"]?.stringValue ?? "query"
        guard operation == "query" || operation == "queryAll" else {
            throw APIError(400, "INVALIDJOB", "InvalidJob : Invalid operation '\(operation)': use query or queryAll")
        }
        guard let text = body["query"]?.stringValue, !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw APIError(400, "INVALIDJOB", "InvalidJob : A query must be specified")
        }
        if let type = body["contentType"]?.stringValue, type != "CSV" {
            throw APIError(400, "INVALIDJOB", "InvalidJob : contentType \(type) is not supported: Bulk API 2.0 returns CSV")
        }
        let query = try Self.parse(text)
        _ = try BulkQueryColumns(query, schema: schema)
        let format = try CSVFormat(delimiter: body["columnDelimiter"]?.stringValue, lineEnding: body["lineEnding"]?.stringValue)
        let object = schema.object(named: query.object)?.name ?? query.object
        let job = try await newJob(
            kind: .query, operation: operation, object: object, externalId: nil, format: format, query: text, version: context.version)
        return .json(job.info(full: false))
    }

    /// `GET /jobs/ingest` or `/jobs/query`: a thousand jobs a page, oldest first.
    private func listJobs(_ kind: BulkJob.Kind, _ context: RequestContext) async throws -> APIResponse {
        let pageSize = 1000
        var after: (Int64, String)?
        if let locator = context.request.parameter("queryLocator") {
            guard let job = try await database.read({ db in try BulkStore.job(locator, on: db) }), seesJob(job) else {
                throw APIError(400, "INVALID_QUERY_LOCATOR", "invalid query locator")
            }
            after = (job.created, job.id)
        }
        let (start, owner) = (after, jobOwnerFilter)
        let jobs = try await database.read { db in
            try BulkStore.jobs(kind: kind, createdBy: owner, after: start, limit: pageSize + 1, on: db)
        }
        let page = jobs.prefix(pageSize)
        let next =
            jobs.count > pageSize ? page.last.map { "/services/data/v\(context.version)/jobs/\(kind.rawValue)?queryLocator=\($0.id)" } : nil
        var records: [JSONValue] = []
        for job in page {
            guard case .object(var info) = job.info(full: false) else { continue }
            info["jobType"] = kind == .ingest ? "V2Ingest" : "V2Query"
            info["contentUrl"] = nil
            records.append(.object(info))
        }
        return .json(["done": .bool(next == nil), "records": .array(records), "nextRecordsUrl": next.map(JSONValue.string) ?? .null])
    }

    /// `PATCH /jobs/{kind}/{id}` with `{"state": "UploadComplete" | "Aborted"}`.
    private func changeJobState(_ id: String, kind: BulkJob.Kind, _ context: RequestContext) async throws -> APIResponse {
        let body = try context.request.jsonObject()
        let job = try await bulkJob(id, kind: kind)
        let now = requestClock().now
        let wanted = body["state"]?.stringValue ?? ""
        let from: Set<String>
        switch (wanted, kind) {
        case ("UploadComplete", .ingest): from = ["Open"]
        case ("Aborted", _): from = ["Open", "UploadComplete", "InProgress"]
        default:
            throw APIError(
                400, "INVALIDJOBSTATE",
                "InvalidJobState : Invalid state '\(wanted)': use \(kind == .ingest ? "UploadComplete or " : "")Aborted")
        }
        // The answer is the job as this transaction left it: read afterwards, a worker (this
        // process's or another's) may already have claimed it, and Salesforce answers a close
        // with UploadComplete.
        let changed = try await database.write { db -> BulkJob? in
            guard try BulkStore.setState(job.id, to: wanted, from: from, now: now, on: db) else { return nil }
            // Uploads still arriving (or left by a process that died during one) will not be added.
            try BulkStore.dropStaging(job.id, on: db)
            return try BulkStore.job(job.id, on: db)
        }
        guard let changed else {
            let current = try await bulkJob(job.id, kind: kind)
            let verb = wanted == "Aborted" ? "Aborting" : "Closing"
            throw Self.invalidJobState("\(verb) already \(current.state == "JobComplete" ? "Completed" : current.state) Job not allowed")
        }
        if wanted == "UploadComplete" { bulkWorker.kick() }
        return .json(changed.info(full: false))
    }

    /// `DELETE /jobs/{kind}/{id}`: a job that is not being worked on, with its data.
    private func deleteJob(_ id: String, kind: BulkJob.Kind) async throws -> APIResponse {
        let job = try await bulkJob(id, kind: kind)
        guard job.state != "InProgress", kind == .query || job.state != "Open" else {
            throw Self.invalidJobState("Deleting a job in state \(job.state) is not allowed: abort it first")
        }
        try await database.write { db in try BulkStore.delete(job.id, on: db) }
        return .noContent()
    }
}
