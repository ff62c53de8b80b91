import FastJSON
import Foundation
import SOQL

/// The processing of Bulk jobs (see ``BulkWorker``).
extension LocalForce {
    /// A step that found the job no longer InProgress under this process's claim (aborted,
    /// or taken over): its writes are rolled back.
    private struct LostClaim: Error {}

    /// Consecutive injected faults after which a job fails.
    static let maximumConsecutiveFaults = 10

    /// Claims the oldest job (Bulk API 2.0) or batch (1.0) waiting to run, or whose claim went
    /// stale, for `owner`: its id, a batch's prefixed `batch:`.
    func claimBulkJob(owner: String) async -> String? {
        if let job = await claim(owner: owner, table: "lf_bulk_jobs", waiting: "UploadComplete") { return job }
        return await claim(owner: owner, table: "lf_bulk_batches", waiting: "Queued").map { "batch:\($0)" }
    }

    private func claim(owner: String, table: String, waiting state: String) async -> String? {
        // Claims are timed by the machine's clock, not the org's (which may be offset per process).
        let (now, machine) = (currentTime(), Self.nowMilliseconds())
        let stale = machine - bulk.claimTimeout.wholeMilliseconds
        @Sendable func waiting(_ arguments: SQLArguments) -> String {
            "(state = '\(state)' OR (state = 'InProgress' AND (claimed_at IS NULL OR claimed_at < \(arguments.bind(.integer(stale))))))"
        }
        // A read first: most kicks find nothing to do, and take no write lock to learn it.
        let any = try? await database.read { db in
            let arguments = SQLArguments(dialect: db.dialect)
            return try db.scalar("SELECT id FROM \(table) WHERE \(waiting(arguments)) LIMIT 1", arguments.values)
        }
        guard any?.text != nil else { return nil }
        return try? await database.write { db -> String? in
            for _ in 0..<3 {
                let select = SQLArguments(dialect: db.dialect)
                guard
                    let id = try db.scalar("SELECT id FROM \(table) WHERE \(waiting(select)) ORDER BY created, id LIMIT 1", select.values)?
                        .text
                else { return nil }
                // One taken over after its process went away counts a retry.
                let update = SQLArguments(dialect: db.dialect)
                let sql = """
                    UPDATE \(table) SET retries = retries + (CASE WHEN state = 'InProgress' THEN 1 ELSE 0 END),
                    state = 'InProgress', claimed_by = \(update.bind(.text(owner))), claimed_at = \(update.bind(.integer(machine))),
                    modstamp = \(update.bind(.integer(now))) WHERE id = \(update.bind(.text(id))) AND \(waiting(update))
                    """
                if try db.execute(sql, update.values) > 0 { return id }
            }
            return nil
        }
    }

    /// Runs a claimed job to its end (or until it is aborted or taken over).
    func runBulkJob(_ id: String, owner: String) async {
        if id.hasPrefix("batch:") { return await runBatch(String(id.dropFirst(6)), owner: owner) }
        do {
            guard let job = try await database.read({ db in try BulkStore.job(id, on: db) }) else { return }
            guard job.retries < Self.maximumRetries else {
                throw BulkJobFailure("Unknown : the job was retried \(job.retries) times")
            }
            switch job.kind {
            case .ingest: try await runIngest(job, owner: owner)
            case .query: try await runQuery(job, owner: owner)
            case .classic: return
            }
        } catch is LostClaim {
            return
        } catch let failure as BulkJobFailure {
            await failJob(id, owner: owner, message: failure.message)
        } catch {
            // Storage failing (busy, a lost connection, the database closing): the job is let
            // go, to be claimed again and resumed, up to a limit.
            let message = "Unknown : \(LocalForce.unexpected(error).message)"
            if await !release(id, table: "lf_bulk_jobs", owner: owner) { await failJob(id, owner: owner, message: message) }
        }
    }

    /// Retries a job or batch gets at most (takeovers and storage failures together).
    static let maximumRetries: Int64 = 10

    /// Lets a claimed job or batch go, to be claimed again at once (counted in its retries when
    /// claimed); false when it has had its retries, or is no longer this owner's.
    func release(_ id: String, table: String, owner: String) async -> Bool {
        try? await Task.sleep(for: .milliseconds(100))
        let released = try? await database.write { db in
            let p = db.dialect.placeholder
            return try db.execute(
                "UPDATE \(table) SET claimed_at = NULL WHERE id = \(p(1)) AND claimed_by = \(p(2)) AND state = 'InProgress' AND retries < \(p(3))",
                [.text(id), .text(owner), .integer(Self.maximumRetries)]) > 0
        }
        return released ?? true
    }

    private func failJob(_ id: String, owner: String, message: String) async {
        let now = currentTime()
        _ = try? await database.write { db in
            let p = db.dialect.placeholder
            try db.execute(
                "UPDATE lf_bulk_jobs SET state = 'Failed', error = \(p(1)), modstamp = \(p(2)), claimed_by = NULL WHERE id = \(p(3)) AND state = 'InProgress' AND claimed_by = \(p(4))",
                [.text(message), .integer(now), .text(id), .text(owner)])
        }
    }

    /// Whether fault injection hits the next transaction of a job or batch (`table`, `id`,
    /// seen by fault predicates as a request to `path`): it is then not run, and counted in
    /// `retries`; too many in a row fail it.
    func injectedFault(table: String, id: String, path: String, consecutive: inout Int) async throws -> Bool {
        let request = APIRequest(method: "POST", path: path, query: nil, headers: [:], body: [])
        guard await faults.fault(for: request) != nil else {
            consecutive = 0
            return false
        }
        consecutive += 1
        guard consecutive < Self.maximumConsecutiveFaults else {
            throw BulkJobFailure("Unknown : processing failed \(consecutive) times in a row (injected faults)")
        }
        _ = try await database.write { db in
            try db.execute("UPDATE \(table) SET retries = retries + 1 WHERE id = \(db.dialect.placeholder(1))", [.text(id)])
        }
        try? await Task.sleep(for: .milliseconds(20))
        return true
    }

    private func injectedFault(_ job: BulkJob, consecutive: inout Int) async throws -> Bool {
        try await injectedFault(
            table: "lf_bulk_jobs", id: job.id, path: "/services/data/v\(job.apiVersion)/jobs/\(job.kind.rawValue)/\(job.id)/processing",
            consecutive: &consecutive)
    }

    /// Saves a step's progress under the claim (throws ``LostClaim`` when the job moved on).
    private static func save(
        _ job: BulkJob, state: String, error: String?, elapsed: Int64, now: Int64, owner: String, on db: any SQLConnection
    ) throws {
        let arguments = SQLArguments(dialect: db.dialect)
        let values: [(String, SQLValue)] = [
            ("state", .text(state)), ("error", error.map(SQLValue.text) ?? .null), ("processed", .integer(job.processed)),
            ("failed", .integer(job.failed)), ("result_rows", .integer(job.resultRows)), ("position_chunk", .integer(job.positionChunk)),
            ("position_offset", .integer(job.positionOffset)), ("claimed_at", .integer(nowMilliseconds())), ("modstamp", .integer(now)),
        ]
        let assignments = values.map { "\($0.0) = \(arguments.bind($0.1))" }.joined(separator: ", ")
        let sql = """
            UPDATE lf_bulk_jobs SET \(assignments), processing_ms = processing_ms + \(arguments.bind(.integer(elapsed)))
            WHERE id = \(arguments.bind(.text(job.id))) AND state = 'InProgress' AND claimed_by = \(arguments.bind(.text(owner)))
            """
        guard try db.execute(sql, arguments.values) > 0 else { throw LostClaim() }
    }

    private func runIngest(_ job: BulkJob, owner: String) async throws {
        guard let object = schema.object(named: job.object) else { throw BulkJobFailure("InvalidJob : Unknown object \(job.object)") }
        let columns = try BulkColumn.resolve(job.columns ?? [], object: object, schema: schema).get()
        let (schema, options) = (self.schema, bulk)
        var faults = 0
        var cached: BulkStore.Chunk?
        while true {
            if try await injectedFault(job, consecutive: &faults) { continue }
            let now = currentTime()
            let source =
                streaming.options.capturesChanges
                ? CaptureSource(schema: schema, userId: job.createdBy, origin: "com/salesforce/api/bulk/\(job.apiVersion)", now: now) : nil
            let ended = try await database.write(capturing: source) { [cached] db, capture -> (BulkIngestStep.Outcome, BulkStore.Chunk?) in
                let started = ContinuousClock.now
                guard let current = try BulkStore.job(job.id, on: db), current.state == "InProgress" else { throw LostClaim() }
                // Inserts reserve the transaction's ids and stamps at once (one statement each,
                // not one a record; a failed create leaves values unused). Other operations run
                // each record under a savepoint, whose rollback would undo a counter row's
                // reservation made inside it (SQLite): they take values one at a time.
                let api = RecordAPI(
                    schema: schema, db: db, userId: current.createdBy, version: current.apiVersion,
                    clock: WriteClock(now: now, stamps: self.stamps),
                    counters: current.operation == "insert" ? CounterBlock(size: options.recordsPerTransaction) : nil,
                    capture: capture)
                let step = BulkIngestStep(
                    api: api, job: current, columns: columns, limit: options.recordsPerTransaction,
                    maximumRecords: Int64(options.maximumRecordsPerJob), cached: cached)
                let (outcome, updated, chunk) = try step.run()
                let (state, error): (String, String?) =
                    switch outcome {
                    case .more: ("InProgress", nil)
                    case .complete: ("JobComplete", nil)
                    case .failed(let message): ("Failed", message)
                    }
                try Self.save(
                    updated, state: state, error: error, elapsed: started.duration(to: .now).wholeMilliseconds, now: now, owner: owner,
                    on: db)
                return (outcome, chunk)
            }
            cached = ended.1
            streaming.afterWrite(now: now)
            guard case .more = ended.0 else { return }
        }
    }

    /// A query job: its records in the order the query gives them, written as CSV chunks of
    /// 2,000 rows, each chunk with the job's progress in one transaction. A query without
    /// ORDER BY, LIMIT or FOR is read by keyset (in `Id` order, 2,000 at a time after the last
    /// id read), so the job holds one page whatever its size; any other reads a snapshot of the
    /// matching ids first (about 20 bytes each). Started over from the first row when taken over.
    private func runQuery(_ job: BulkJob, owner: String) async throws {
        let query: Query
        let columns: BulkQueryColumns
        do {
            query = try Self.parse(job.query ?? "")
            columns = try BulkQueryColumns(query, schema: schema)
        } catch {
            throw BulkJobFailure("InvalidBatch : \(error.message)")
        }
        let chunks = QueryChunks(
            schema: schema, now: requestClock().date, job: job, query: query, columns: columns, owner: owner)
        try await database.write { db in try BulkStore.deleteResults(job.id, on: db) }
        var snapshot: [String]?
        if !query.orderBy.isEmpty || query.limit != nil || query.forClause != nil {
            do {
                snapshot = try await database.read { db in
                    try chunks.engine(db).firstPage(query, batchSize: 1, version: job.apiVersion).snapshot.ids
                }
            } catch {
                throw chunks.failure(error)
            }
        }
        var state = job
        state.resultRows = 0
        state.processed = 0
        var faults = 0
        var position = QueryChunks.Position()
        var done = false
        while !done {
            if try await injectedFault(job, consecutive: &faults) { continue }
            let stamp = currentTime()
            (state, position, done) = try await database.write { [state, position, snapshot] db in
                try chunks.write(after: state, from: position, snapshot: snapshot, stamp: stamp, on: db)
            }
        }
    }

    /// A query job's chunks of results, written one transaction each.
    private struct QueryChunks: Sendable {
        /// Where the next chunk starts: a position in the snapshot, or after an id (keyset).
        struct Position: Sendable {
            var start = 0
            var lastId: String?
        }

        let schema: Schema
        let now: Date
        let job: BulkJob
        let query: Query
        let columns: BulkQueryColumns
        let owner: String
        let batch = QueryEngine.defaultBatchSize

        func engine(_ db: any SQLConnection) -> QueryEngine {
            QueryEngine(schema: schema, db: db, now: now, includeDeleted: job.operation == "queryAll", userId: job.createdBy)
        }

        func failure(_ error: any Error) -> BulkJobFailure {
            BulkJobFailure("InvalidBatch : Failed to process query: \(LocalForce.apiError(error, job.query ?? "").message)")
        }

        /// Reads the next chunk, appends it as CSV to the results and saves the job's progress;
        /// returns the job, where the next chunk starts and whether this one was the last.
        func write(after state: BulkJob, from position: Position, snapshot: [String]?, stamp: Int64, on db: any SQLConnection) throws
            -> (BulkJob, Position, Bool)
        {
            let started = ContinuousClock.now
            var writer = JSONWriter(reservingCapacity: 1 << 16)
            writer.write(punctuation: "[")
            let (next, last): (Position, Bool)
            do {
                (next, last) = try read(from: position, snapshot: snapshot, engine: engine(db), to: &writer)
            } catch {
                throw failure(error)
            }
            writer.write(punctuation: "]")
            var lines: [UInt8] = []
            let records = try JSONValue(parsing: writer.bytes).arrayValue ?? []
            for record in records { lines += job.format.line(columns.values(of: record)) }
            var updated = state
            if !records.isEmpty {
                try BulkStore.append(
                    job.id, part: "result", body: String(decoding: lines, as: UTF8.self), rows: Int64(records.count),
                    firstRow: updated.resultRows, on: db)
            }
            updated.resultRows += Int64(records.count)
            updated.processed = updated.resultRows
            try LocalForce.save(
                updated, state: last ? "JobComplete" : "InProgress", error: nil, elapsed: started.duration(to: .now).wholeMilliseconds,
                now: stamp, owner: owner, on: db)
            return (updated, next, last)
        }

        /// Writes the chunk's records (JSON) from the snapshot, or by keyset after the last id.
        private func read(from position: Position, snapshot: [String]?, engine: QueryEngine, to writer: inout JSONWriter) throws
            -> (Position, Bool)
        {
            var next = position
            if let snapshot {
                let ids = snapshot[position.start..<min(snapshot.count, position.start + batch)]
                try engine.writeRecords(query, ids: ids, version: job.apiVersion, to: &writer)
                next.start = ids.endIndex
                return (next, ids.endIndex >= snapshot.count)
            }
            var page = query
            page.orderBy = [OrderItem(field: FieldPath(["Id"]))]
            page.limit = batch
            if let after = position.lastId {
                let keyset = Condition.comparison(FieldPath(["Id"]), .greaterThan, .string(after, likePattern: after))
                page.condition = query.condition.map { .and([.group($0), keyset]) } ?? keyset
            }
            let (found, records) = try engine.firstPage(page, batchSize: batch, version: job.apiVersion)
            writer.writeRaw(records)
            next.lastId = found.ids.last
            return (next, found.ids.count < batch)
        }
    }
}
