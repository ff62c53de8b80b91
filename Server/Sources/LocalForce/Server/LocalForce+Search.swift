import FastJSON
import Foundation
import SOQL

extension LocalForce {
    /// `MALFORMED_SEARCH` for what cannot be parsed; too deep a nesting keeps its own code.
    static func searchErrorCode(_ error: SOQLError) -> String {
        error.code == .queryTooComplicated ? error.code.rawValue : "MALFORMED_SEARCH"
    }

    /// `GET /search?q=<SOSL>`.
    func search(_ context: RequestContext) async throws -> APIResponse {
        guard context.request.method == "GET", context.path.count == 1 else { throw APIError.notFound }
        guard let text = context.request.parameter("q"), !text.isEmpty else {
            throw APIError(400, "MALFORMED_SEARCH", "No search term found. The search term must be enclosed in braces.")
        }
        let search: SearchQuery
        do {
            search = try SOSLParser.parse(text)
        } catch {
            throw APIError(400, Self.searchErrorCode(error), error.salesforceMessage(for: text))
        }
        return try await runSearch(search, version: context.version, text: text)
    }

    private func runSearch(_ search: SearchQuery, version: String, text: String) async throws -> APIResponse {
        if search.searchText.replacingOccurrences(of: "*", with: "").trimmingCharacters(in: .whitespaces).count < 2 {
            throw APIError(400, "INVALID_SEARCH", "search term must be longer than one character: \(search.searchText)")
        }
        let (schema, now) = (self.schema, requestClock().date)
        let bytes = try await database.read { db in
            do {
                return try SearchEngine(schema: schema, db: db, version: version, now: now).run(search)
            } catch {
                throw Self.apiError(error, text)
            }
        }
        return .json(bytes: bytes)
    }

    /// `GET /parameterizedSearch?q=…&sobject=…&{T}.fields=…` and `POST` with a JSON body.
    func parameterizedSearch(_ context: RequestContext) async throws -> APIResponse {
        let request = context.request
        var text: String?
        var scope = SearchQuery.Scope.all
        var overallLimit: Int?
        var defaultLimit: Int?
        var objects: [(name: String, fields: [String], where: String?, limit: Int?)] = []
        var globalFields: [String] = []
        switch request.method {
        case "GET":
            text = request.parameter("q")
            scope = request.parameter("in").flatMap { SearchQuery.Scope(rawValue: $0.uppercased()) } ?? .all
            overallLimit = request.parameter("overallLimit").flatMap(Int.init)
            defaultLimit = request.parameter("defaultLimit").flatMap(Int.init)
            globalFields = Self.list(request.parameter("fields"))
            for (name, value) in request.query where name == "sobject" {
                objects.append(
                    (
                        value, Self.list(request.parameter("\(value).fields")), request.parameter("\(value).where"),
                        request.parameter("\(value).limit").flatMap(Int.init)
                    ))
            }
        case "POST":
            let body = try request.jsonObject()
            text = body["q"]?.stringValue
            scope = body["in"]?.stringValue.flatMap { SearchQuery.Scope(rawValue: $0.uppercased()) } ?? .all
            overallLimit = body["overallLimit"]?.int64Value.map { Int(clamping: $0) }
            defaultLimit = body["defaultLimit"]?.int64Value.map { Int(clamping: $0) }
            globalFields = body["fields"]?.arrayValue?.compactMap(\.stringValue) ?? []
            for item in body["sobjects"]?.arrayValue ?? [] {
                guard let name = item["name"]?.stringValue else { continue }
                objects.append(
                    (
                        name, item["fields"]?.arrayValue?.compactMap(\.stringValue) ?? [], item["where"]?.stringValue,
                        item["limit"]?.int64Value.map { Int(clamping: $0) }
                    ))
            }
        default:
            throw APIError(405, "METHOD_NOT_ALLOWED", "HTTP Method '\(request.method)' not allowed. Allowed are GET,POST")
        }
        guard let text, !text.isEmpty else { throw APIError(400, "MALFORMED_SEARCH", "The q parameter is required") }
        var search: SearchQuery
        do {
            search = SearchQuery(searchText: text, expression: try SOSLParser.parseSearchTerms(text), scope: scope, limit: overallLimit)
            for object in objects {
                var returning = ReturningObject(object: object.name, limit: object.limit ?? defaultLimit)
                let fields = object.fields.isEmpty ? globalFields : object.fields
                returning.fields = fields.map { FieldPath($0.split(separator: ".").map(String.init)) }
                if let filter = object.where {
                    returning.condition = try SOQLParser.parse("SELECT Id FROM \(object.name) WHERE \(filter)").condition
                }
                search.returning.append(returning)
            }
        } catch {
            throw APIError(400, Self.searchErrorCode(error), error.salesforceMessage(for: text))
        }
        return try await runSearch(search, version: context.version, text: text)
    }

    private static func list(_ text: String?) -> [String] {
        (text ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
