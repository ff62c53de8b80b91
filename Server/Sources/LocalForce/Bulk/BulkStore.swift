import FastJSON

/// Where Bulk jobs live: in the org's database, so that any LocalForce process on it can serve
/// any job and jobs survive a restart. `lf_bulk_jobs` holds a row per job; `lf_bulk_data`
/// holds what was uploaded and what processing wrote, in chunks of at most about
/// ``chunkBytes`` (text: the Bulk APIs speak UTF-8 CSV), so neither is ever held whole.
///
/// Parts of a job's data: `upload` (the CSV as uploaded; `starts_upload` marks the chunk an
/// upload starts with, whose first line is its header), `staging:<uuid>` (an upload still
/// arriving), `success` and `failure` (result rows without their header), `result` (a query's
/// rows; `first_row` numbers them for paging).
enum BulkStore {
    /// The size chunks are cut at.
    static let chunkBytes = 1 << 20

    static func create(on db: any SQLConnection) throws {
        let (text, integer) = (db.dialect.textType, db.dialect.integerType)
        try db.execute(
            """
            CREATE TABLE IF NOT EXISTS lf_bulk_jobs (id \(text) PRIMARY KEY, kind \(text) NOT NULL, operation \(text) NOT NULL,
            object \(text) NOT NULL, external_id \(text), state \(text) NOT NULL, delimiter \(text) NOT NULL,
            line_ending \(text) NOT NULL, api_version \(text) NOT NULL, created_by \(text) NOT NULL, created \(integer) NOT NULL,
            modstamp \(integer) NOT NULL, query \(text), columns \(text), error \(text), processed \(integer) NOT NULL DEFAULT 0,
            failed \(integer) NOT NULL DEFAULT 0, retries \(integer) NOT NULL DEFAULT 0, processing_ms \(integer) NOT NULL DEFAULT 0,
            uploaded_bytes \(integer) NOT NULL DEFAULT 0, result_rows \(integer) NOT NULL DEFAULT 0,
            position_chunk \(integer) NOT NULL DEFAULT 0, position_offset \(integer) NOT NULL DEFAULT 0,
            content_type \(text) NOT NULL DEFAULT 'CSV', concurrency \(text) NOT NULL DEFAULT 'Parallel',
            claimed_by \(text), claimed_at \(integer))
            """, [])
        try db.execute(
            """
            CREATE TABLE IF NOT EXISTS lf_bulk_batches (id \(text) PRIMARY KEY, job_id \(text) NOT NULL, state \(text) NOT NULL,
            state_message \(text), created \(integer) NOT NULL, modstamp \(integer) NOT NULL, processed \(integer) NOT NULL DEFAULT 0,
            failed \(integer) NOT NULL DEFAULT 0, retries \(integer) NOT NULL DEFAULT 0, processing_ms \(integer) NOT NULL DEFAULT 0,
            claimed_by \(text), claimed_at \(integer))
            """, [])
        try db.execute("CREATE INDEX IF NOT EXISTS lf_bulk_batches_state ON lf_bulk_batches (state, created)", [])
        try db.execute("CREATE INDEX IF NOT EXISTS lf_bulk_batches_job ON lf_bulk_batches (job_id, created, id)", [])
        try db.execute("CREATE INDEX IF NOT EXISTS lf_bulk_jobs_state ON lf_bulk_jobs (state, created)", [])
        try db.execute("CREATE INDEX IF NOT EXISTS lf_bulk_jobs_list ON lf_bulk_jobs (kind, created, id)", [])
        try db.execute(
            """
            CREATE TABLE IF NOT EXISTS lf_bulk_data (job_id \(text) NOT NULL, part \(text) NOT NULL, chunk \(integer) NOT NULL,
            starts_upload \(integer) NOT NULL DEFAULT 0, first_row \(integer) NOT NULL DEFAULT 0, row_count \(integer) NOT NULL DEFAULT 0,
            body \(text) NOT NULL, PRIMARY KEY (job_id, part, chunk))
            """, [])
    }

    /// How long a job and its data are kept after it was created (Salesforce deletes Bulk jobs
    /// seven days after): each new job removes the expired ones first.
    static let retentionMilliseconds: Int64 = 7 * 86_400_000

    /// Removes the jobs created before `cutoff` (ms), with their batches and data; returns how many.
    @discardableResult
    static func expire(createdBefore cutoff: Int64, on db: any SQLConnection) throws -> Int {
        let p = db.dialect.placeholder
        let expired = "SELECT id FROM lf_bulk_jobs WHERE created < \(p(1))"
        // A Bulk 1.0 batch keeps its request and results under its own id.
        try db.execute(
            "DELETE FROM lf_bulk_data WHERE job_id IN (SELECT id FROM lf_bulk_batches WHERE job_id IN (\(expired)))", [.integer(cutoff)])
        try db.execute("DELETE FROM lf_bulk_data WHERE job_id IN (\(expired))", [.integer(cutoff)])
        try db.execute("DELETE FROM lf_bulk_batches WHERE job_id IN (\(expired))", [.integer(cutoff)])
        return try db.execute("DELETE FROM lf_bulk_jobs WHERE created < \(p(1))", [.integer(cutoff)])
    }

    /// Saves a new job, after removing the expired ones (see ``retentionMilliseconds``).
    static func insert(_ job: BulkJob, on db: any SQLConnection) throws {
        try expire(createdBefore: job.created - retentionMilliseconds, on: db)
        let arguments = SQLArguments(dialect: db.dialect)
        let values: [SQLValue] = [
            .text(job.id), .text(job.kind.rawValue), .text(job.operation), .text(job.object),
            job.externalIdField.map(SQLValue.text) ?? .null,
            .text(job.state), .text(job.format.delimiterName), .text(job.format.lineEnding), .text(job.apiVersion), .text(job.createdBy),
            .integer(job.created), .integer(job.modstamp), job.query.map(SQLValue.text) ?? .null, .text(job.contentType),
            .text(job.concurrencyMode),
        ]
        let placeholders = values.map { arguments.bind($0) }.joined(separator: ", ")
        try db.execute(
            """
            INSERT INTO lf_bulk_jobs (id, kind, operation, object, external_id, state, delimiter, line_ending, api_version,
            created_by, created, modstamp, query, content_type, concurrency) VALUES (\(placeholders))
            """, arguments.values)
    }

    static func job(_ id: String, on db: any SQLConnection) throws -> BulkJob? {
        try db.rows("SELECT \(BulkJob.columnList) FROM lf_bulk_jobs WHERE id = \(db.dialect.placeholder(1))", [.text(id)]).first
            .flatMap(BulkJob.init(row:))
    }

    /// A page of jobs of a kind (of one creator, or everyone's), oldest first, after the job
    /// `after` (by creation, then id).
    static func jobs(
        kind: BulkJob.Kind, createdBy: String?, after: (created: Int64, id: String)?, limit: Int, on db: any SQLConnection
    ) throws -> [BulkJob] {
        let arguments = SQLArguments(dialect: db.dialect)
        var sql = "SELECT \(BulkJob.columnList) FROM lf_bulk_jobs WHERE kind = \(arguments.bind(.text(kind.rawValue)))"
        if let createdBy { sql += " AND created_by = \(arguments.bind(.text(createdBy)))" }
        if let after {
            let created = arguments.bind(.integer(after.created))
            sql +=
                " AND (created > \(created) OR (created = \(arguments.bind(.integer(after.created))) AND id > \(arguments.bind(.text(after.id)))))"
        }
        sql += " ORDER BY created, id LIMIT \(arguments.bind(.integer(Int64(limit))))"
        return try db.rows(sql, arguments.values).compactMap(BulkJob.init(row:))
    }

    /// Sets a job's state (and error), stamping it; `from` guards against a change that
    /// happened meanwhile. Returns whether the row changed.
    @discardableResult
    static func setState(
        _ id: String, to state: String, from: Set<String>, error: String? = nil, now: Int64, on db: any SQLConnection
    ) throws -> Bool {
        let arguments = SQLArguments(dialect: db.dialect)
        let sql = """
            UPDATE lf_bulk_jobs SET state = \(arguments.bind(.text(state))), error = COALESCE(\(arguments.bind(error.map(SQLValue.text) ?? .null)), error),
            modstamp = \(arguments.bind(.integer(now))), claimed_by = NULL WHERE id = \(arguments.bind(.text(id)))
            AND state IN (\(from.sorted().map { arguments.bind(.text($0)) }.joined(separator: ", ")))
            """
        return try db.execute(sql, arguments.values) > 0
    }

    /// Appends a chunk to a part; `first` marks the chunk an upload starts with.
    static func append(
        _ id: String, part: String, body: String, rows: Int64 = 0, firstRow: Int64 = 0, first: Bool = false, on db: any SQLConnection
    ) throws {
        let p = db.dialect.placeholder
        let next =
            try db.scalar(
                "SELECT COALESCE(MAX(chunk), 0) + 1 FROM lf_bulk_data WHERE job_id = \(p(1)) AND part = \(p(2))", [.text(id), .text(part)]
            )?.integer ?? 1
        try db.execute(
            "INSERT INTO lf_bulk_data (job_id, part, chunk, starts_upload, first_row, row_count, body) VALUES (\(p(1)), \(p(2)), \(p(3)), \(p(4)), \(p(5)), \(p(6)), \(p(7)))",
            [.text(id), .text(part), .integer(next), .integer(first ? 1 : 0), .integer(firstRow), .integer(rows), .text(body)])
    }

    /// One stored chunk.
    struct Chunk: Sendable {
        var number: Int64
        var first: Bool
        var firstRow: Int64
        var rows: Int64
        var body: [UInt8]
    }

    /// The first chunk of a part numbered `number` or after it.
    static func chunk(_ id: String, part: String, from number: Int64, on db: any SQLConnection) throws -> Chunk? {
        let p = db.dialect.placeholder
        guard
            let row = try db.rows(
                "SELECT chunk, starts_upload, first_row, row_count, body FROM lf_bulk_data WHERE job_id = \(p(1)) AND part = \(p(2)) AND chunk >= \(p(3)) ORDER BY chunk LIMIT 1",
                [.text(id), .text(part), .integer(number)]
            ).first, row.count == 5, let chunk = row[0].integer
        else { return nil }
        return Chunk(
            number: chunk, first: row[1].integer == 1, firstRow: row[2].integer ?? 0, rows: row[3].integer ?? 0,
            body: Array((row[4].text ?? "").utf8))
    }

    /// The chunk of a query's results holding row `row` (0-based).
    static func resultChunk(_ id: String, holding row: Int64, on db: any SQLConnection) throws -> Chunk? {
        let p = db.dialect.placeholder
        guard
            let number = try db.scalar(
                "SELECT MAX(chunk) FROM lf_bulk_data WHERE job_id = \(p(1)) AND part = 'result' AND first_row <= \(p(2))",
                [.text(id), .integer(row)])?.integer
        else { return nil }
        return try chunk(id, part: "result", from: number, on: db)
    }

    /// Moves an upload staged under `staging` to the end of the job's `upload` part, in one
    /// transaction, if the job is still Open (the row lock orders it against a state change);
    /// the first upload sets the job's header. Returns false when the job is no longer Open.
    static func commitUpload(
        _ id: String, staging: String, bytes: Int64, columns: [String], on db: any SQLConnection
    ) throws(APIError) -> Bool {
        do {
            let p = db.dialect.placeholder
            let header = JSONValue.array(columns.map(JSONValue.string)).jsonString
            let updated = try db.execute(
                "UPDATE lf_bulk_jobs SET uploaded_bytes = uploaded_bytes + \(p(1)), columns = COALESCE(columns, \(p(2))) WHERE id = \(p(3)) AND state = 'Open'",
                [.integer(bytes), .text(header), .text(id)])
            guard updated > 0 else { return false }
            guard try db.scalar("SELECT columns FROM lf_bulk_jobs WHERE id = \(p(1))", [.text(id)])?.text == header else {
                throw APIError(
                    400, "INVALIDBATCH", "Every upload of a job must start with the same header line: \(columns.joined(separator: ","))")
            }
            let base =
                try db.scalar("SELECT COALESCE(MAX(chunk), 0) FROM lf_bulk_data WHERE job_id = \(p(1)) AND part = 'upload'", [.text(id)])?
                .integer ?? 0
            try db.execute(
                "UPDATE lf_bulk_data SET part = 'upload', chunk = chunk + \(p(1)) WHERE job_id = \(p(2)) AND part = \(p(3))",
                [.integer(base), .text(id), .text(staging)])
            return true
        } catch let error as APIError {
            throw error
        } catch {
            throw LocalForce.unexpected(error)
        }
    }

    /// Removes a staged upload that did not complete, or (`staging` nil) every one of the job's.
    static func dropStaging(_ id: String, staging: String? = nil, on db: any SQLConnection) throws {
        let p = db.dialect.placeholder
        if let staging {
            try db.execute("DELETE FROM lf_bulk_data WHERE job_id = \(p(1)) AND part = \(p(2))", [.text(id), .text(staging)])
        } else {
            try db.execute("DELETE FROM lf_bulk_data WHERE job_id = \(p(1)) AND part LIKE 'staging:%'", [.text(id)])
        }
    }

    /// Removes a job and its data.
    static func delete(_ id: String, on db: any SQLConnection) throws {
        let p = db.dialect.placeholder
        try db.execute("DELETE FROM lf_bulk_data WHERE job_id = \(p(1))", [.text(id)])
        try db.execute("DELETE FROM lf_bulk_jobs WHERE id = \(p(1))", [.text(id)])
    }

    /// Removes what processing wrote (a job started over).
    static func deleteResults(_ id: String, on db: any SQLConnection) throws {
        try db.execute("DELETE FROM lf_bulk_data WHERE job_id = \(db.dialect.placeholder(1)) AND part <> 'upload'", [.text(id)])
    }
}
