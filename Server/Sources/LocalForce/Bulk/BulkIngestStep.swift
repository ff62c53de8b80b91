import FastJSON
@_spi(MSyncInternal) import SalesforceWire

/// One transaction of an ingest job's processing: up to ``BulkOptions/recordsPerTransaction``
/// records read from where the job stands, each written through the record writer (the
/// checks, stamps and change events of REST) under a savepoint of its own, their results
/// appended and the job's counts and position saved, all committed together.
struct BulkIngestStep {
    let api: RecordAPI
    let job: BulkJob
    let columns: [BulkColumn]
    let limit: Int
    let maximumRecords: Int64
    /// The upload chunk the previous step ended in (uploaded chunks never change once the job
    /// runs): a step starting in it does not read its mebibyte again.
    var cached: BulkStore.Chunk? = nil

    enum Outcome {
        /// More records remain.
        case more
        /// The job is complete.
        case complete
        /// The job failed: its message.
        case failed(String)
    }

    /// Runs the step; the caller commits it (and saves the job) with the rest of the transaction.
    /// Also returns the chunk it ended in, for the next step's ``cached``.
    func run() throws -> (outcome: Outcome, job: BulkJob, chunk: BulkStore.Chunk?) {
        var job = self.job
        let db = api.db
        var reader = CSVReader(delimiter: job.format.delimiter)
        var success: [UInt8] = []
        var failure: [UInt8] = []
        var count = 0
        var outcome = Outcome.more
        var chunk =
            try cached.flatMap { $0.number == job.positionChunk ? $0 : nil }
            ?? BulkStore.chunk(job.id, part: "upload", from: job.positionChunk, on: db)
        var offset = chunk.map { $0.number == job.positionChunk ? min(Int(clamping: job.positionOffset), $0.body.count) : 0 } ?? 0
        do {
            if let first = chunk, first.first, offset == 0 { try skipHeader(&reader, first.body, &offset) }
            reading: while count < limit {
                guard let current = chunk else {
                    outcome = .complete
                    break
                }
                var record = try reader.next(in: current.body, offset: &offset)
                if record == nil {
                    // The chunk ended: the next one, or the end of the data.
                    let following = try BulkStore.chunk(job.id, part: "upload", from: current.number + 1, on: db)
                    if following == nil || following?.first == true { record = try reader.finish() }
                    if record == nil {
                        chunk = following
                        offset = 0
                        if let next = chunk, next.first { try skipHeader(&reader, next.body, &offset) }
                        continue reading
                    }
                }
                guard let record else { continue }
                if job.processed >= maximumRecords {
                    outcome = .failed("ExceededQuota : A job may hold at most \(maximumRecords) records")
                    break
                }
                let (ok, line) = write(record)
                if ok { success += line } else { failure += line }
                job.processed += 1
                if !ok { job.failed += 1 }
                job.positionChunk = current.number
                job.positionOffset = Int64(offset)
                count += 1
            }
        } catch let error as CSVError {
            outcome = .failed("InvalidBatch : \(error.message)")
        }
        if !success.isEmpty { try BulkStore.append(job.id, part: "success", body: String(decoding: success, as: UTF8.self), on: db) }
        if !failure.isEmpty { try BulkStore.append(job.id, part: "failure", body: String(decoding: failure, as: UTF8.self), on: db) }
        return (outcome, job, chunk)
    }

    /// Reads past an upload's header line (an upload of a header alone may end without a line break).
    private func skipHeader(_ reader: inout CSVReader, _ body: [UInt8], _ offset: inout Int) throws(CSVError) {
        if try reader.next(in: body, offset: &offset) == nil { _ = try reader.finish() }
    }

    /// Writes one record; its result line (success or failure) and whether it succeeded.
    private func write(_ values: [String]) -> (Bool, [UInt8]) {
        var id: String?
        do {
            guard values.count == columns.count else {
                throw APIError(
                    400, "INVALID_FIELD", "The record has \(values.count) fields where the header has \(columns.count)")
            }
            let object = try object()
            var body: [String: JSONValue] = [:]
            for (column, text) in zip(columns, values) where !text.isEmpty {
                switch column {
                case .id: id = text
                case .field(let field): body[field.name] = try BulkColumn.json(text, for: field)
                case .parent(let lookup, let target, let key):
                    body[lookup.name] = text == "#N/A" ? .null : .string(try api.parentId(target, key: key, value: text, lookup: lookup))
                }
            }
            // A create writes nothing when it fails (see RecordWriter.create): no savepoint for it.
            let (written, created) =
                job.operation == "insert"
                ? try api.bulkSave(object, job: job, id: id, body: body)
                : try withSavepoint(api.db, capture: api.capture) { try api.bulkSave(object, job: job, id: id, body: body) }
            return (true, job.format.line([written, created ? "true" : "false"] + values))
        } catch let error as APIError {
            return (false, job.format.line([id ?? "", error.bulkText] + values))
        } catch {
            return (false, job.format.line([id ?? "", LocalForce.unexpected(error).bulkText] + values))
        }
    }

    private func object() throws(APIError) -> ObjectDefinition {
        guard let object = api.schema.object(named: job.object) else {
            throw APIError(400, "INVALID_TYPE", "sObject type '\(job.object)' is not supported.")
        }
        return object
    }
}
