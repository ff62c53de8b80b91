import FastJSON
import Foundation
import SOQL

extension LocalForce {
    /// `GET /query?q=`, `GET /query/{locator}-{offset}` (and the same under `queryAll`).
    func query(_ context: RequestContext, includeDeleted: Bool) async throws -> APIResponse {
        guard context.request.method == "GET" else {
            throw APIError(405, "METHOD_NOT_ALLOWED", "HTTP Method '\(context.request.method)' not allowed. Allowed are GET")
        }
        if context.path.count == 2 { return try await queryMore(locator: context.path[1], version: context.version) }
        guard context.path.count == 1 else { throw APIError.notFound }
        guard let text = context.request.parameter("q"), !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw APIError(400, "MALFORMED_QUERY", "A query string has to be specified")
        }
        let query = try Self.parse(text)
        let batchSize = Self.batchSize(context.request.headers["sforce-query-options"])
        let schema = self.schema
        let now = requestClock().date
        let userId = requestUserId()
        let childCursors = ChildCursorSink()
        let page: (snapshot: QueryEngine.Snapshot, records: [UInt8]) = try await database.read { db in
            do {
                return try QueryEngine(
                    schema: schema, db: db, now: now, includeDeleted: includeDeleted, userId: userId, childCursors: childCursors
                )
                .firstPage(query, batchSize: batchSize, version: context.version)
            } catch {
                throw Self.apiError(error, text)
            }
        }
        try await cursors.register(childCursors.cursors)
        var locator: String?
        if page.snapshot.ids.count > batchSize {
            locator = try await cursors.open(
                QueryCursors.Cursor(
                    query: query, version: context.version, includeDeleted: includeDeleted,
                    batchSize: batchSize, ids: IdList(page.snapshot.ids), lastUsed: Date()))
        }
        if query.forClause == .view || query.forClause == .reference {
            try await markViewed(
                object: query.object, ids: Array(page.snapshot.ids.prefix(batchSize)), referenced: query.forClause == .reference)
        }
        return Self.pageResponse(
            totalSize: page.snapshot.totalSize, records: page.records,
            next: locator.map { "/services/data/v\(context.version)/query/\($0)-\(batchSize)" })
    }

    private func queryMore(locator path: String, version: String) async throws -> APIResponse {
        let invalid = APIError(400, "INVALID_QUERY_LOCATOR", "invalid query locator")
        guard let dash = path.lastIndex(of: "-"), let offset = Int(path[path.index(after: dash)...]), offset >= 0 else { throw invalid }
        let locator = String(path[..<dash])
        guard let cursor = try await cursors.cursor(locator), offset <= cursor.ids.count else { throw invalid }
        let schema = self.schema
        let now = requestClock().date
        let end = min(cursor.ids.count, offset.addingReportingOverflow(cursor.batchSize).partialValue)
        let childCursors = ChildCursorSink()
        let records: [UInt8] = try await database.read { db in
            let engine = QueryEngine(schema: schema, db: db, now: now, includeDeleted: cursor.includeDeleted, childCursors: childCursors)
            var writer = JSONWriter(reservingCapacity: 1 << 16)
            do {
                try engine.writeRecords(cursor.query, ids: cursor.ids.ids(in: offset..<end), version: cursor.version, to: &writer)
            } catch {
                throw Self.apiError(error, cursor.query.description)
            }
            return writer.bytes
        }
        try await cursors.register(childCursors.cursors)
        return Self.pageResponse(
            totalSize: cursor.ids.count, records: records,
            next: end < cursor.ids.count ? "/services/data/v\(version)/query/\(locator)-\(end)" : nil)
    }

    static func pageResponse(totalSize: Int, records: [UInt8], next: String?) -> APIResponse {
        var writer = JSONWriter(reservingCapacity: records.count + 128)
        writer.write(punctuation: "{")
        writer.writeKey("totalSize")
        writer.write(.int(Int64(totalSize)))
        writer.write(punctuation: ",")
        writer.writeKey("done")
        writer.write(.bool(next == nil))
        if let next {
            writer.write(punctuation: ",")
            writer.writeKey("nextRecordsUrl")
            writer.writeString(next)
        }
        writer.write(punctuation: ",")
        writer.writeKey("records")
        writer.write(punctuation: "[")
        writer.writeRaw(records)
        writer.write(punctuation: "]")
        writer.write(punctuation: "}")
        return .json(bytes: writer.bytes)
    }

    static func parse(_ text: String) throws(APIError) -> Query {
        do {
            return try SOQLParser.parse(text)
        } catch {
            throw apiError(error, text)
        }
    }

    /// A SOQL error as the 400 Salesforce answers (caret message for positioned errors).
    static func apiError(_ error: any Error, _ text: String) -> APIError {
        if let error = error as? APIError { return error }
        guard let error = error as? SOQLError else { return LocalForce.unexpected(error) }
        return APIError(400, error.code.rawValue, error.salesforceMessage(for: text))
    }

    /// `Sforce-Query-Options: batchSize=N`, clamped to 200…2000 (default 2000).
    static func batchSize(_ header: String?) -> Int {
        let sizes = QueryEngine.batchSizes
        guard let header else { return QueryEngine.defaultBatchSize }
        for option in header.split(separator: ",") {
            let parts = option.split(separator: "=").map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2, parts[0].lowercased() == "batchsize", let size = Int(parts[1]) {
                return min(sizes.upperBound, max(sizes.lowerBound, size))
            }
        }
        return QueryEngine.defaultBatchSize
    }

    /// `FOR VIEW` / `FOR REFERENCE`: stamps `LastViewedDate` / `LastReferencedDate`.
    func markViewed(object name: String, ids: [String], referenced: Bool) async throws {
        guard let object = schema.object(named: name), object.mruEnabled, !ids.isEmpty else { return }
        let now = requestClock().now
        try await database.write { db in
            let arguments = SQLArguments(dialect: db.dialect)
            let columns = referenced ? ["LastReferencedDate"] : ["LastViewedDate", "LastReferencedDate"]
            let assignments = columns.map { "\(SQLDialect.quote($0)) = \(arguments.bind(.integer(now)))" }.joined(separator: ", ")
            let list = ids.map { arguments.bind(.text($0)) }.joined(separator: ", ")
            try db.execute("UPDATE \(SQLDialect.quote(object.name)) SET \(assignments) WHERE \"Id\" IN (\(list))", arguments.values)
        }
    }
}
