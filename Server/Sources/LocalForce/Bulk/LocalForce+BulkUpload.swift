import Foundation

extension LocalForce {
    /// `PUT /jobs/ingest/{id}/batches`: CSV for an Open job, written to the database a chunk at
    /// a time as it arrives (staged, then added to the job's data in one transaction, so a
    /// broken upload adds nothing). Several uploads are allowed; each starts with the same header.
    func uploadJobData(_ id: String, _ context: RequestContext) async throws -> APIResponse {
        let job = try await bulkJob(id, kind: .ingest)
        guard job.state == "Open" else {
            throw APIError(409, "INVALIDJOBSTATE", "Failed to upload data, since the Job is not Open. Current job state is '\(job.state)'")
        }
        let staging = "staging:\(UUID().uuidString)"
        let limit = bulk.maximumUploadSize
        var pending: [UInt8] = []
        var total = 0
        var header: [String]?
        // How far the header's read has gone into `pending` (the header ends long before the
        // first chunk is cut: a record longer than CSVReader allows is an error first).
        var headerScan = 0
        var staged = 0
        var reader = CSVReader(delimiter: job.format.delimiter)
        let stream = context.request.bodyPieces
        do {
            while let piece = try await stream.next() {
                total += piece.count
                guard total <= limit else {
                    throw APIError(413, "REQUEST_TOO_LARGE", "An upload may hold at most \(limit) bytes of CSV")
                }
                pending += piece
                if header == nil {
                    header = try Self.csv { () throws(CSVError) in try reader.next(in: pending, offset: &headerScan) }
                }
                if pending.count >= BulkStore.chunkBytes {
                    guard header != nil else {
                        throw APIError(400, "INVALIDBATCH", "InvalidBatch : The upload must start with its header line")
                    }
                    try await stage(&pending, job: job.id, staging: staging, first: staged == 0, final: false)
                    staged += 1
                }
            }
            if header == nil { header = try Self.csv { () throws(CSVError) in try reader.finish() } }
            guard let header, !header.isEmpty, total > 0 else {
                throw APIError(400, "INVALIDBATCH", "InvalidBatch : The upload is empty: it needs a header line and records")
            }
            try await stage(&pending, job: job.id, staging: staging, first: staged == 0, final: true)
            let bytes = Int64(total)
            let committed = try await database.write { db in
                try BulkStore.commitUpload(job.id, staging: staging, bytes: bytes, columns: header, on: db)
            }
            guard committed else { throw Self.invalidJobState("The job is no longer Open: the upload was not added") }
        } catch {
            _ = try? await database.write { db in try BulkStore.dropStaging(job.id, staging: staging, on: db) }
            throw error
        }
        return APIResponse(status: 201)
    }

    /// Writes what is pending, up to its last whole UTF-8 character (all of it when `final`),
    /// as the next staged chunk; bytes that are not UTF-8 are refused as soon as a chunk holds
    /// them (each chunk is checked once, so an upload costs time linear in its size).
    private func stage(_ pending: inout [UInt8], job: String, staging: String, first: Bool, final: Bool) async throws {
        guard !pending.isEmpty else { return }
        var end = pending.count
        if !final {
            // Back off to the start of a character cut at the end: continuation bytes are
            // 10xxxxxx, and a character has three at most. Without a lead byte within reach the
            // bytes are no character at all, and the check below refuses them now.
            var back = 0
            while back < 3, end > 0, pending[end - 1] & 0xC0 == 0x80 {
                end -= 1
                back += 1
            }
            if end > 0, pending[end - 1] >= 0xC0 { end -= 1 } else { end = pending.count }
        }
        guard let text = String(validating: pending[..<end], as: UTF8.self), !text.utf8.contains(0) else {
            throw APIError(400, "INVALIDBATCH", "InvalidBatch : The upload is not UTF-8 text (or holds a NUL character)")
        }
        try await database.write { db in try BulkStore.append(job, part: staging, body: text, first: first, on: db) }
        pending.removeFirst(end)
    }

    /// Runs a CSV read, its error as Salesforce's `InvalidBatch`.
    static func csv<T>(_ body: () throws(CSVError) -> T) throws(APIError) -> T {
        do {
            return try body()
        } catch {
            throw APIError(400, "INVALIDBATCH", "InvalidBatch : \(error.message)")
        }
    }
}
