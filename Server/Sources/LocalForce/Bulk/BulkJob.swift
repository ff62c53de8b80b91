import FastJSON
import Foundation
import SalesforceWire

/// A Bulk API job as stored in `lf_bulk_jobs`: what it does, where it stands, and its counts.
struct BulkJob: Sendable {
    /// Bulk API 2.0 ingest and query jobs, and Bulk API 1.0 jobs (`classic`, their batches in
    /// `lf_bulk_batches`).
    enum Kind: String, Sendable {
        case ingest, query, classic
    }

    var id: String
    var kind: Kind
    var operation: String
    var object: String
    var externalIdField: String?
    var state: String
    var format: CSVFormat
    /// `CSV` (Bulk API 2.0, and 1.0 CSV jobs) or `JSON` (1.0).
    var contentType = "CSV"
    /// `Parallel` or `Serial` (Bulk API 1.0 takes either; both run the same here).
    var concurrencyMode = "Parallel"
    var apiVersion: String
    var createdBy: String
    var created: Int64
    var modstamp: Int64
    var query: String?
    /// The header every upload of an ingest job starts with (nil before the first upload).
    var columns: [String]?
    var errorMessage: String?
    var processed: Int64 = 0
    var failed: Int64 = 0
    var retries: Int64 = 0
    var processingTime: Int64 = 0
    /// Bytes uploaded so far, and (query jobs) the result rows written.
    var uploadedBytes: Int64 = 0
    var resultRows: Int64 = 0
    /// Where processing stands in the upload: the chunk and the byte in it of the next record.
    var positionChunk: Int64 = 0
    var positionOffset: Int64 = 0

    static let columnList =
        "id, kind, operation, object, external_id, state, delimiter, line_ending, api_version, created_by, created, modstamp, query, columns, error, processed, failed, retries, processing_ms, uploaded_bytes, result_rows, position_chunk, position_offset, content_type, concurrency"

    init(
        id: String, kind: Kind, operation: String, object: String, externalIdField: String?, state: String, format: CSVFormat,
        apiVersion: String, createdBy: String, created: Int64, query: String?
    ) {
        self.id = id
        self.kind = kind
        self.operation = operation
        self.object = object
        self.externalIdField = externalIdField
        self.state = state
        self.format = format
        self.apiVersion = apiVersion
        self.createdBy = createdBy
        self.created = created
        self.modstamp = created
        self.query = query
    }

    /// A job from a row selected with ``columnList``.
    init?(row: [SQLValue]) {
        guard row.count == 25, let id = row[0].text, let kind = row[1].text.flatMap(Kind.init(rawValue:)) else { return nil }
        let text = { (index: Int) -> String in row[index].text ?? "" }
        let integer = { (index: Int) -> Int64 in row[index].integer ?? 0 }
        self.id = id
        self.kind = kind
        operation = text(2)
        object = text(3)
        externalIdField = row[4].text
        state = text(5)
        format = (try? CSVFormat(delimiter: row[6].text, lineEnding: row[7].text)) ?? .comma
        apiVersion = text(8)
        createdBy = text(9)
        created = integer(10)
        modstamp = integer(11)
        query = row[12].text
        columns = row[13].text.flatMap { try? JSONValue(parsing: Array($0.utf8)) }?.arrayValue?.compactMap(\.stringValue)
        errorMessage = row[14].text
        processed = integer(15)
        failed = integer(16)
        retries = integer(17)
        processingTime = integer(18)
        uploadedBytes = integer(19)
        resultRows = integer(20)
        positionChunk = integer(21)
        positionOffset = integer(22)
        contentType = row[23].text ?? "CSV"
        concurrencyMode = row[24].text ?? "Parallel"
    }

    /// The job info Salesforce answers with: the short form after a create or a state change,
    /// the full form (counts and times) for a job read.
    func info(full: Bool) -> JSONValue {
        var info: [String: JSONValue] = [
            "id": .string(id), "operation": .string(operation), "object": .string(object), "createdById": .string(createdBy),
            "createdDate": .string(SalesforceTime.format(created)), "systemModstamp": .string(SalesforceTime.format(modstamp)),
            "state": .string(state), "concurrencyMode": .string(concurrencyMode), "contentType": .string(contentType),
            "apiVersion": .double(Double(apiVersion) ?? 0), "lineEnding": .string(format.lineEnding),
            "columnDelimiter": .string(format.delimiterName),
        ]
        if let externalIdField, kind == .ingest, operation == "upsert" { info["externalIdFieldName"] = .string(externalIdField) }
        if kind == .ingest, state == "Open" { info["contentUrl"] = .string("services/data/v\(apiVersion)/jobs/ingest/\(id)/batches") }
        if full {
            info["jobType"] = kind == .ingest ? "V2Ingest" : kind == .query ? "V2Query" : "Classic"
            info["numberRecordsProcessed"] = .int(processed)
            info["retries"] = .int(retries)
            info["totalProcessingTime"] = .int(processingTime)
            if kind == .ingest {
                info["numberRecordsFailed"] = .int(failed)
                info["apiActiveProcessingTime"] = .int(processingTime)
                info["apexProcessingTime"] = 0
            } else {
                info["isPkChunkingSupported"] = false
            }
            if let errorMessage { info["errorMessage"] = .string(errorMessage) }
        }
        return .object(info)
    }
}
