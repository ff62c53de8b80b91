import FastJSON
import Foundation
import SOQL

/// One subrequest of a composite or batch call, run on the caller's connection.
struct Subrequest {
    var method: String
    /// Path (with `/services/data/vNN.N/` or `vNN.N/`), optionally with a query string.
    var url: String
    var body: JSONValue?
    var headers: [String: String] = [:]

    /// Query cursors a subrequest opened (its own and its child lists'), which the caller
    /// registers once the transaction has committed; their locators are already in the answer.
    typealias Cursors = [(locator: String, cursor: QueryCursors.Cursor)]

    /// Runs the subrequest: record endpoints under `sobjects/` and `query` / `queryAll` (paged as
    /// `/query` pages: `Sforce-Query-Options` batch size, `done`, `nextRecordsUrl`, child lists).
    func run(schema: Schema, db: any SQLConnection, userId: String, clock: WriteClock, capture: ChangeCapture? = nil) throws -> (
        APIResponse, Cursors
    ) {
        let (pathPart, queryPart) = url.split(separator: "?", maxSplits: 1).map(String.init).splitFirst
        var segments = APIRequest.segments(of: pathPart)
        if segments.starts(with: ["services", "data"]) { segments.removeFirst(2) }
        guard let versionSegment = segments.first, let version = LocalForce.version(versionSegment) else { throw APIError.notFound }
        segments.removeFirst()
        let request = APIRequest(method: method, path: "/", query: queryPart, headers: headers, body: body.map(\.jsonBytes) ?? [])
        switch segments.first {
        case "sobjects" where segments.count >= 2 && segments.count <= 4:
            let response = try RecordAPI(schema: schema, db: db, userId: userId, version: version, clock: clock, capture: capture)
                .handle(
                    method: method, path: Array(segments.dropFirst()), parameters: request.parameter, headers: request.headers,
                    body: { () throws(APIError) -> [String: JSONValue] in
                        guard case .object(let members)? = body else { throw APIError.jsonParser("The request body must be a JSON object") }
                        return members
                    })
            return (response, [])
        case "query", "queryAll":
            guard method == "GET", segments.count == 1, let text = request.parameter("q") else { throw APIError.notFound }
            let includeDeleted = segments[0] == "queryAll"
            let query = try LocalForce.parse(text)
            let batchSize = LocalForce.batchSize(headers["sforce-query-options"])
            let childCursors = ChildCursorSink()
            let engine = QueryEngine(
                schema: schema, db: db, now: clock.date, includeDeleted: includeDeleted, userId: userId, childCursors: childCursors)
            do {
                let (snapshot, records) = try engine.firstPage(query, batchSize: batchSize, version: version)
                var cursors = childCursors.cursors
                var next: String?
                if snapshot.ids.count > batchSize {
                    let locator = QueryCursors.newLocator()
                    cursors.append(
                        (
                            locator,
                            QueryCursors.Cursor(
                                query: query, version: version, includeDeleted: includeDeleted, batchSize: batchSize,
                                ids: IdList(snapshot.ids), lastUsed: Date())
                        ))
                    next = "/services/data/v\(version)/query/\(locator)-\(batchSize)"
                }
                return (LocalForce.pageResponse(totalSize: snapshot.totalSize, records: records, next: next), cursors)
            } catch {
                throw LocalForce.apiError(error, text)
            }
        default:
            throw APIError.notFound
        }
    }
}

extension Array where Element == String {
    /// The first element and, if any, the second.
    var splitFirst: (String, String?) { (first ?? "", count > 1 ? self[1] : nil) }
}
