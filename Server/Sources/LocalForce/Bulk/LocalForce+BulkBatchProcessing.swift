import Foundation

extension LocalForce {
    /// Runs a claimed Bulk API 1.0 batch: all of it, its results and its state in one
    /// transaction (a batch holds at most 10,000 records), so a batch is done once or not at
    /// all; a process that dies leaves it to be taken over. A batch of an aborted job is not run.
    func runBatch(_ id: String, owner: String) async {
        let schema = self.schema
        var faults = 0
        while true {
            let now = currentTime()
            do {
                let path = "/services/async/batch/\(id)/processing"
                if try await injectedFault(table: "lf_bulk_batches", id: id, path: path, consecutive: &faults) { continue }
            } catch let failure as BulkJobFailure {
                await finishBatch(id, owner: owner, state: "Failed", message: failure.message)
                return
            } catch {
                // Counting the retry failed: the batch is let go like any storage failure.
                if await !release(id, table: "lf_bulk_batches", owner: owner) {
                    await finishBatch(id, owner: owner, state: "Failed", message: "Unknown : \(LocalForce.unexpected(error).message)")
                }
                return
            }
            let capture = streaming.options.capturesChanges
            do {
                let stamps = self.stamps
                try await database.write { db in
                    try Self.runBatch(
                        id, owner: owner, schema: schema, capturing: capture, clock: WriteClock(now: now, stamps: stamps), on: db)
                }
                streaming.afterWrite(now: now)
            } catch let failure as BulkJobFailure {
                await finishBatch(id, owner: owner, state: "Failed", message: failure.message)
            } catch {
                // Storage failing: the batch is let go, to be claimed again, up to a limit.
                let message = "Unknown : \(LocalForce.unexpected(error).message)"
                if await !release(id, table: "lf_bulk_batches", owner: owner) {
                    await finishBatch(id, owner: owner, state: "Failed", message: message)
                }
            }
            return
        }
    }

    /// The batch's transaction: its records written, its changes captured, its state saved
    /// (nothing for a batch gone or of an aborted job).
    private static func runBatch(
        _ id: String, owner: String, schema: Schema, capturing capture: Bool, clock: WriteClock, on db: any SQLConnection
    ) throws {
        let (started, now) = (ContinuousClock.now, clock.now)
        guard let batch = try BulkBatch.batch(id, on: db), let job = try BulkStore.job(batch.jobId, on: db) else { return }
        guard batch.retries < Self.maximumRetries else {
            throw BulkJobFailure("Unknown : the batch was retried \(batch.retries) times")
        }
        let p = db.dialect.placeholder
        guard job.state != "Aborted" else {
            try db.execute(
                "UPDATE lf_bulk_batches SET state = 'NotProcessed', state_message = 'The job was aborted', claimed_by = NULL WHERE id = \(p(1))",
                [.text(id)])
            return
        }
        let source =
            capture
            ? CaptureSource(schema: schema, userId: job.createdBy, origin: "com/salesforce/api/bulk/\(job.apiVersion)", now: now) : nil
        let api = RecordAPI(
            schema: schema, db: db, userId: job.createdBy, version: job.apiVersion, clock: clock, capture: source?.make())
        let done = try BulkBatchRun(api: api, job: job, batch: batch, now: Date(timeIntervalSince1970: Double(now) / 1000)).run()
        try api.capture?.flush(on: db)
        let elapsed = started.duration(to: .now).wholeMilliseconds
        let updated = try db.execute(
            """
            UPDATE lf_bulk_batches SET state = 'Completed', processed = \(p(1)), failed = \(p(2)), processing_ms = processing_ms + \(p(3)),
            modstamp = \(p(4)), claimed_by = NULL WHERE id = \(p(5)) AND state = 'InProgress' AND claimed_by = \(p(6))
            """, [.integer(done.processed), .integer(done.failed), .integer(elapsed), .integer(now), .text(id), .text(owner)])
        guard updated > 0 else { throw BulkJobFailure("taken over") }
    }

    private func finishBatch(_ id: String, owner: String, state: String, message: String) async {
        let now = currentTime()
        _ = try? await database.write { db in
            let p = db.dialect.placeholder
            try db.execute(
                "UPDATE lf_bulk_batches SET state = \(p(1)), state_message = \(p(2)), modstamp = \(p(3)), claimed_by = NULL WHERE id = \(p(4)) AND state = 'InProgress' AND claimed_by = \(p(5))",
                [.text(state), .text(message), .integer(now), .text(id), .text(owner)])
        }
    }
}
