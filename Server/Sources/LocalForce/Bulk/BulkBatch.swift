import FastJSON
import SalesforceWire

/// A Bulk API 1.0 batch as stored in `lf_bulk_batches`; its request and results are chunks in
/// `lf_bulk_data` under the batch's id (`request`, `result`, and `result:<id>` for a query's).
struct BulkBatch: Sendable {
    var id: String
    var jobId: String
    var state: String
    var stateMessage: String?
    var created: Int64
    var modstamp: Int64
    var processed: Int64 = 0
    var failed: Int64 = 0
    var retries: Int64 = 0
    var processingTime: Int64 = 0

    static let columnList = "id, job_id, state, state_message, created, modstamp, processed, failed, retries, processing_ms"

    init(id: String, jobId: String, created: Int64) {
        self.id = id
        self.jobId = jobId
        self.state = "Queued"
        self.created = created
        self.modstamp = created
    }

    init?(row: [SQLValue]) {
        guard row.count == 10, let id = row[0].text, let jobId = row[1].text else { return nil }
        self.id = id
        self.jobId = jobId
        state = row[2].text ?? "Queued"
        stateMessage = row[3].text
        created = row[4].integer ?? 0
        modstamp = row[5].integer ?? 0
        processed = row[6].integer ?? 0
        failed = row[7].integer ?? 0
        retries = row[8].integer ?? 0
        processingTime = row[9].integer ?? 0
    }

    /// The batchInfo Salesforce answers with.
    var info: JSONValue {
        var info: [String: JSONValue] = [
            "id": .string(id), "jobId": .string(jobId), "state": .string(state),
            "createdDate": .string(SalesforceTime.format(created)), "systemModstamp": .string(SalesforceTime.format(modstamp)),
            "numberRecordsProcessed": .int(processed), "numberRecordsFailed": .int(failed),
            "totalProcessingTime": .int(processingTime), "apiActiveProcessingTime": .int(processingTime), "apexProcessingTime": 0,
        ]
        if let stateMessage { info["stateMessage"] = .string(stateMessage) }
        return .object(info)
    }

    static func insert(_ batch: BulkBatch, on db: any SQLConnection) throws {
        let p = db.dialect.placeholder
        try db.execute(
            "INSERT INTO lf_bulk_batches (id, job_id, state, created, modstamp) VALUES (\(p(1)), \(p(2)), \(p(3)), \(p(4)), \(p(5)))",
            [.text(batch.id), .text(batch.jobId), .text(batch.state), .integer(batch.created), .integer(batch.modstamp)])
    }

    static func batch(_ id: String, on db: any SQLConnection) throws -> BulkBatch? {
        try db.rows("SELECT \(columnList) FROM lf_bulk_batches WHERE id = \(db.dialect.placeholder(1))", [.text(id)]).first
            .flatMap(BulkBatch.init(row:))
    }

    static func batches(ofJob id: String, on db: any SQLConnection) throws -> [BulkBatch] {
        try db.rows(
            "SELECT \(columnList) FROM lf_bulk_batches WHERE job_id = \(db.dialect.placeholder(1)) ORDER BY created, id", [.text(id)]
        )
        .compactMap(BulkBatch.init(row:))
    }

    /// A classic job's info: the job's fields and its batches' counts.
    static func jobInfo(_ job: BulkJob, batches: [BulkBatch]) -> JSONValue {
        guard case .object(var info) = job.info(full: false) else { return job.info(full: false) }
        info["contentUrl"] = nil
        info["externalIdFieldName"] = job.externalIdField.map(JSONValue.string) ?? .null
        info["assignmentRuleId"] = .null
        info["fastPathEnabled"] = false
        let count = { (states: Set<String>) in JSONValue.int(Int64(batches.filter { states.contains($0.state) }.count)) }
        info["numberBatchesQueued"] = count(["Queued"])
        info["numberBatchesInProgress"] = count(["InProgress"])
        info["numberBatchesCompleted"] = count(["Completed"])
        info["numberBatchesFailed"] = count(["Failed", "NotProcessed"])
        info["numberBatchesTotal"] = .int(Int64(batches.count))
        info["numberRecordsProcessed"] = .int(batches.reduce(0) { $0 + $1.processed })
        info["numberRecordsFailed"] = .int(batches.reduce(0) { $0 + $1.failed })
        info["numberRetries"] = .int(batches.reduce(0) { $0 + $1.retries })
        let time = batches.reduce(0) { $0 + $1.processingTime }
        info["totalProcessingTime"] = .int(time)
        info["apiActiveProcessingTime"] = .int(time)
        info["apexProcessingTime"] = 0
        return .object(info)
    }
}
