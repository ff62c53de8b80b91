import FastJSON
import Foundation
import NIOConcurrencyHelpers

/// Bulk API 1.0 batches' requests and results, in the job's content type: JSON, CSV or XML
/// (a query batch's list of result ids is XML for CSV and XML jobs, as on Salesforce).
extension LocalForce {
    private static func contentType(of job: BulkJob) -> String {
        switch job.contentType {
        case "JSON": BulkClassicFormat.jsonContentType
        case "XML": BulkXMLWriter.contentType
        default: "text/csv"
        }
    }

    func batchRequest(_ job: BulkJob, _ batch: BulkBatch) async throws -> APIResponse {
        let body = try await database.read { db in try BulkStore.chunk(batch.id, part: "request", from: 0, on: db)?.body } ?? []
        return APIResponse(status: 200, headers: ["Content-Type": Self.contentType(of: job)], body: body)
    }

    /// A batch's results: a DML batch's save results; a query batch's list of result ids, or
    /// (`result`) one of its result sets.
    func batchResult(_ job: BulkJob, _ batch: BulkBatch, result: String?) async throws -> APIResponse {
        guard batch.state == "Completed" || (batch.state == "Failed" && result == nil) else {
            throw APIError(400, "InvalidBatch", "Batch not completed: its state is \(batch.state)")
        }
        let isQuery = job.operation == "query" || job.operation == "queryAll"
        if isQuery, result == nil {
            let ids = try await database.read { db in
                try db.rows(
                    "SELECT part FROM lf_bulk_data WHERE job_id = \(db.dialect.placeholder(1)) AND part LIKE 'result:%' ORDER BY part",
                    [.text(batch.id)]
                ).compactMap { $0.first?.text.map { String($0.dropFirst("result:".count)) } }
            }
            if job.contentType == "JSON" {
                return .json(.array(ids.map(JSONValue.string)), headers: ["Content-Type": BulkClassicFormat.jsonContentType])
            }
            return APIResponse(
                status: 200, headers: ["Content-Type": BulkXMLWriter.contentType], body: BulkXMLWriter.resultList(ids))
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
            status: 200, headers: ["Content-Type": Self.contentType(of: job)],
            bodyStream: BodyStream {
                let number = next.withLockedValue { $0 }
                guard let chunk = try await database.read({ db in try BulkStore.chunk(batch.id, part: part, from: number, on: db) })
                else { return nil }
                next.withLockedValue { $0 = chunk.number + 1 }
                return chunk.body
            })
    }
}
