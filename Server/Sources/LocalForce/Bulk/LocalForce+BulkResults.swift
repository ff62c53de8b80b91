import FastJSON
import Foundation
import NIOConcurrencyHelpers

extension LocalForce {
    static let csvHeaders = ["Content-Type": "text/csv"]

    /// `GET /jobs/ingest/{id}/successfulResults`, `failedResults`, `unprocessedrecords`: CSV
    /// streamed from the job's stored chunks, each with its header line first.
    func ingestResults(_ id: String, part name: String) async throws -> APIResponse {
        let job = try await bulkJob(id, kind: .ingest)
        let columns = job.columns ?? []
        let database = self.database
        switch name.lowercased() {
        case "successfulresults":
            let header = job.format.line(["sf__Id", "sf__Created"] + columns)
            return APIResponse(
                status: 200, headers: Self.csvHeaders, bodyStream: Self.partStream(database, job.id, "success", header: header))
        case "failedresults":
            let header = job.format.line(["sf__Id", "sf__Error"] + columns)
            return APIResponse(
                status: 200, headers: Self.csvHeaders, bodyStream: Self.partStream(database, job.id, "failure", header: header))
        case "unprocessedrecords":
            let header = columns.isEmpty ? [] : job.format.line(columns)
            return APIResponse(status: 200, headers: Self.csvHeaders, bodyStream: Self.unprocessedStream(database, job, header: header))
        default:
            throw APIError.notFound
        }
    }

    /// A part's chunks in order after `header`, read one at a time as the client takes them.
    private static func partStream(_ database: any SQLDatabase, _ id: String, _ part: String, header: [UInt8]) -> BodyStream {
        let next = NIOLockedValueBox<Int64?>(nil)
        return BodyStream {
            guard let number = next.withLockedValue({ $0 }) else {
                next.withLockedValue { $0 = 1 }
                return header
            }
            guard let chunk = try await database.read({ db in try BulkStore.chunk(id, part: part, from: number, on: db) }) else {
                return nil
            }
            next.withLockedValue { $0 = chunk.number + 1 }
            return chunk.body
        }
    }

    /// The records of the upload from where processing stands (none once the job completed),
    /// without the header line each later upload starts with.
    private static func unprocessedStream(_ database: any SQLDatabase, _ job: BulkJob, header: [UInt8]) -> BodyStream {
        let position = NIOLockedValueBox<(chunk: Int64, offset: Int)?>(nil)
        let (id, delimiter, lineBreak) = (job.id, job.format.delimiter, job.format.lineBreak)
        let done = job.state == "JobComplete"
        return BodyStream {
            guard let (number, offset) = position.withLockedValue({ $0 }) else {
                position.withLockedValue { $0 = (job.positionChunk, Int(clamping: job.positionOffset)) }
                return header
            }
            if done { return nil }
            guard let chunk = try await database.read({ db in try BulkStore.chunk(id, part: "upload", from: number, on: db) }) else {
                return nil
            }
            position.withLockedValue { $0 = (chunk.number + 1, 0) }
            var start = chunk.number == number ? min(offset, chunk.body.count) : 0
            if chunk.first, start == 0 {
                // Past this upload's header line.
                var reader = CSVReader(delimiter: delimiter, enforcesLimits: false)
                if (try? reader.next(in: chunk.body, offset: &start)) == nil { start = chunk.body.count }
            }
            var bytes = Array(chunk.body[start...])
            // An upload whose last line has no line break does not run into the next one's first.
            if let last = bytes.last, last != 0x0A {
                let following = try await database.read { db in try BulkStore.chunk(id, part: "upload", from: chunk.number + 1, on: db) }
                if following == nil || following?.first == true { bytes += lineBreak }
            }
            return bytes
        }
    }

    /// `GET /jobs/query/{id}/results?locator=&maxRecords=`: a page of the results, its header
    /// line first; `Sforce-Locator` gives the next page (`null` after the last) and
    /// `Sforce-NumberOfRecords` how many this one holds.
    func queryResults(_ id: String, _ context: RequestContext) async throws -> APIResponse {
        let job = try await completedQuery(id)
        let start = try Self.row(ofLocator: context.request.parameter("locator"), total: job.resultRows)
        var count = job.resultRows - start
        if let maximum = try Self.maxRecords(context) { count = min(count, maximum) }
        let end = start + count
        var headers = Self.csvHeaders
        headers["Sforce-NumberOfRecords"] = String(count)
        headers["Sforce-Locator"] = end < job.resultRows ? Self.locator(ofRow: end) : "null"
        let header = job.format.line(try BulkQueryColumns(try Self.parse(job.query ?? ""), schema: schema).header)
        return APIResponse(status: 200, headers: headers, bodyStream: Self.rowStream(database, job, rows: start..<end, header: header))
    }

    /// `GET /jobs/query/{id}/resultPages`: links to pages of the results that may be downloaded
    /// in parallel, five at a time (`maxRecords` sets their size, 50,000 records by default).
    func resultPages(_ id: String, _ context: RequestContext) async throws -> APIResponse {
        let job = try await completedQuery(id)
        var size: Int64 = 50_000
        // No page is larger than the results (so the links' rows cannot overflow).
        if let maximum = try Self.maxRecords(context) { size = min(maximum, max(1, job.resultRows)) }
        let first = try Self.row(ofLocator: context.request.parameter("locator"), total: job.resultRows)
        let base = "/services/data/v\(context.version)/jobs/query/\(job.id)"
        var links: [JSONValue] = []
        var row = first
        repeat {
            links.append(["resultLink": .string("\(base)/results?locator=\(Self.locator(ofRow: row))&maxRecords=\(size)")])
            row += size
        } while row < job.resultRows && links.count < 5
        let next = row < job.resultRows ? "\(base)/resultPages?locator=\(Self.locator(ofRow: row))&maxRecords=\(size)" : nil
        return .json([
            "resultPages": .array(links), "nextRecordsUrl": next.map(JSONValue.string) ?? .null, "done": .bool(next == nil),
        ])
    }

    /// The `maxRecords` parameter: nil when absent, else a positive integer (400 otherwise).
    private static func maxRecords(_ context: RequestContext) throws(APIError) -> Int64? {
        guard let text = context.request.parameter("maxRecords") else { return nil }
        guard let maximum = Int64(text), maximum > 0 else {
            throw APIError(400, "API_ERROR", "maxRecords must be a positive integer, not '\(text)'")
        }
        return maximum
    }

    private func completedQuery(_ id: String) async throws -> BulkJob {
        let job = try await bulkJob(id, kind: .query)
        guard job.state == "JobComplete" else {
            throw Self.invalidJobState("The results of a query job are ready once it is JobComplete; it is \(job.state)")
        }
        return job
    }

    /// Locators are the row a page starts at, in base 64 (as Salesforce's look).
    static func locator(ofRow row: Int64) -> String {
        Data(String(row).utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
    }

    static func row(ofLocator locator: String?, total: Int64) throws(APIError) -> Int64 {
        guard let locator, !locator.isEmpty, locator != "null" else { return 0 }
        let padded = locator + String(repeating: "=", count: (4 - locator.count % 4) % 4)
        guard let data = Data(base64Encoded: padded), let row = Int64(String(decoding: data, as: UTF8.self)), (0...total).contains(row)
        else { throw APIError(400, "API_ERROR", "Invalid locator '\(locator)'") }
        return row
    }

    /// Rows `rows` of a query's results after `header`, copied from the stored chunks as they are.
    private static func rowStream(_ database: any SQLDatabase, _ job: BulkJob, rows: Range<Int64>, header: [UInt8]) -> BodyStream {
        let next = NIOLockedValueBox<Int64?>(nil)
        let (id, delimiter) = (job.id, job.format.delimiter)
        return BodyStream {
            guard let row = next.withLockedValue({ $0 }) else {
                next.withLockedValue { $0 = rows.lowerBound }
                return header
            }
            guard row < rows.upperBound,
                let chunk = try await database.read({ db in try BulkStore.resultChunk(id, holding: row, on: db) })
            else { return nil }
            // Skip to `row`, then take the chunk's rows up to the page's end (LocalForce wrote
            // them: no limits apply, so a long row is counted as one).
            var reader = CSVReader(delimiter: delimiter, enforcesLimits: false)
            var offset = 0
            var current = chunk.firstRow
            while current < row, (try? reader.next(in: chunk.body, offset: &offset)) != nil { current += 1 }
            let start = offset
            let last = min(rows.upperBound, chunk.firstRow + chunk.rows)
            if last == chunk.firstRow + chunk.rows {
                offset = chunk.body.count
            } else {
                while current < last, (try? reader.next(in: chunk.body, offset: &offset)) != nil { current += 1 }
            }
            next.withLockedValue { $0 = last }
            return Array(chunk.body[start..<offset])
        }
    }
}
