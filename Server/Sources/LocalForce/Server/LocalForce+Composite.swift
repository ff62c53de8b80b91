import FastJSON
import Foundation
import SalesforceWire

extension LocalForce {
    /// `/composite` (references, allOrNone), `/composite/batch`, `/composite/sobjects…` (collections).
    func composite(_ context: RequestContext) async throws -> APIResponse {
        switch context.path.count {
        case 1: return try await compositeRequest(context)
        case 2 where context.path[1] == "batch": return try await compositeBatch(context)
        default:
            guard context.path[1] == "sobjects" else { throw APIError.notFound }
            return try await collections(context)
        }
    }

    private struct CompositeItem {
        var subrequest: Subrequest
        var referenceId: String
    }

    /// Thrown inside the allOrNone transaction to roll it back with the results so far.
    private struct RollBack: Error {
        var results: [(String, APIResponse)]
        var failedIndex: Int
    }

    private func compositeItems(_ context: RequestContext) throws(APIError) -> (items: [CompositeItem], allOrNone: Bool) {
        let body = try context.request.jsonObject()
        guard let requests = body["compositeRequest"]?.arrayValue else {
            throw APIError(400, "JSON_PARSER_ERROR", "compositeRequest is required")
        }
        guard requests.count <= 25 else { throw APIError(400, "LIMIT_EXCEEDED", "Maximum number of subrequests is 25.") }
        var items: [CompositeItem] = []
        var seen: Set<String> = []
        for request in requests {
            guard let subrequest = CompositeSubrequest(json: request),
                ["GET", "POST", "PATCH", "PUT", "DELETE"].contains(subrequest.method)
            else {
                throw APIError(400, "INVALID_INPUT", "Each subrequest needs method (GET, POST, PATCH, PUT, DELETE), url and referenceId")
            }
            let referenceId = subrequest.referenceId
            guard !referenceId.isEmpty, referenceId.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }),
                seen.insert(referenceId).inserted
            else {
                throw APIError(400, "INVALID_INPUT", "Invalid or duplicate referenceId: \(referenceId)")
            }
            var headers: [String: String] = [:]
            for (name, value) in subrequest.httpHeaders {
                if ["accept", "authorization", "content-type"].contains(name.lowercased()) {
                    throw APIError(400, "INVALID_INPUT", "The \(name) header is not allowed in a subrequest")
                }
                headers[name.lowercased()] = value
            }
            let method = subrequest.method == "PUT" ? "PATCH" : subrequest.method
            items.append(
                CompositeItem(
                    subrequest: Subrequest(method: method, url: subrequest.url, body: subrequest.body, headers: headers),
                    referenceId: referenceId))
        }
        return (items, body["allOrNone"]?.boolValue ?? false)
    }

    private static let halted = APIError(
        400, "PROCESSING_HALTED", "The transaction was rolled back since another operation in the same transaction failed.")

    private func compositeRequest(_ context: RequestContext) async throws -> APIResponse {
        guard context.request.method == "POST" else {
            throw APIError(405, "METHOD_NOT_ALLOWED", "HTTP Method '\(context.request.method)' not allowed. Allowed are POST")
        }
        let (items, allOrNone) = try compositeItems(context)
        let (schema, userId, clock) = (self.schema, requestUserId(), requestClock())
        var results: [(String, APIResponse)] = []
        var cursors: [(Int, Subrequest.PendingCursor)] = []
        /// Runs one item: resolves references, skips it when it depends on a failed one.
        let step: @Sendable (any SQLConnection, CompositeItem, CompositeReferences) throws -> (APIResponse, Subrequest.PendingCursor?) = {
            db, item, references in
            var subrequest = item.subrequest
            let texts = [subrequest.url] + (subrequest.body.map { [$0.jsonString] } ?? [])
            if references.dependsOnFailure(texts) { return (.error(Self.halted), nil) }
            do {
                subrequest.url = try references.resolve(url: subrequest.url)
                subrequest.body = try subrequest.body.map { body throws(APIError) in try references.resolve(body: body) }
                return try subrequest.run(schema: schema, db: db, userId: userId, clock: clock)
            } catch let error as APIError {
                return (.error(error), nil)
            }
        }
        if allOrNone {
            do {
                let outcome = try await database.write { db -> ([(String, APIResponse)], [(Int, Subrequest.PendingCursor)]) in
                    var references = CompositeReferences()
                    var done: [(String, APIResponse)] = []
                    var pending: [(Int, Subrequest.PendingCursor)] = []
                    for (index, item) in items.enumerated() {
                        let (response, cursor) = try step(db, item, references)
                        done.append((item.referenceId, response))
                        if response.status >= 400 { throw RollBack(results: done, failedIndex: index) }
                        if let cursor { pending.append((index, cursor)) }
                        references.record(item.referenceId, status: response.status, body: response.body)
                    }
                    return (done, pending)
                }
                results = outcome.0
                cursors = outcome.1
            } catch let rollback as RollBack {
                results = items.enumerated().map { index, item in
                    index == rollback.failedIndex ? rollback.results[index] : (item.referenceId, .error(Self.halted))
                }
            }
        } else {
            var references = CompositeReferences()
            for (index, item) in items.enumerated() {
                let snapshot = references
                let (response, cursor) = try await database.write { db in try step(db, item, snapshot) }
                results.append((item.referenceId, response))
                if let cursor { cursors.append((index, cursor)) }
                references.record(item.referenceId, status: response.status, body: response.body)
            }
        }
        for (index, cursor) in cursors {
            let locator = try await self.cursors.open(
                QueryCursors.Cursor(
                    query: cursor.query, version: cursor.version, includeDeleted: cursor.includeDeleted,
                    batchSize: 2000, ids: IdList(cursor.ids), lastUsed: Date()))
            if var page = try? JSONValue(parsing: results[index].1.body) {
                page["nextRecordsUrl"] = .string("/services/data/v\(cursor.version)/query/\(locator)-2000")
                results[index].1.body = page.jsonBytes
            }
        }
        var writer = JSONWriter(reservingCapacity: 4096)
        writer.write(punctuation: "{")
        writer.writeKey("compositeResponse")
        writer.write(punctuation: "[")
        for (index, (referenceId, response)) in results.enumerated() {
            if index > 0 { writer.write(punctuation: ",") }
            writer.write(punctuation: "{")
            writer.writeKey("body")
            if response.body.isEmpty { writer.write(.null) } else { writer.writeRaw(response.body) }
            writer.write(punctuation: ",")
            writer.writeKey("httpHeaders")
            writer.write(.object(response.headers.filter { $0.key == "Location" }.mapValues(JSONValue.string)))
            writer.write(punctuation: ",")
            writer.writeKey("httpStatusCode")
            writer.write(.int(Int64(response.status)))
            writer.write(punctuation: ",")
            writer.writeKey("referenceId")
            writer.writeString(referenceId)
            writer.write(punctuation: "}")
        }
        writer.write(punctuation: "]")
        writer.write(punctuation: "}")
        return .json(bytes: writer.bytes)
    }

    /// `/composite/batch`: independent subrequests, each committed on its own.
    private func compositeBatch(_ context: RequestContext) async throws -> APIResponse {
        guard context.request.method == "POST" else {
            throw APIError(405, "METHOD_NOT_ALLOWED", "HTTP Method '\(context.request.method)' not allowed. Allowed are POST")
        }
        let body = try context.request.jsonObject()
        guard let requests = body["batchRequests"]?.arrayValue else {
            throw APIError(400, "JSON_PARSER_ERROR", "batchRequests is required")
        }
        guard requests.count <= 25 else { throw APIError(400, "LIMIT_EXCEEDED", "Maximum number of subrequests is 25.") }
        let haltOnError = body["haltOnError"]?.boolValue ?? false
        let (schema, userId, clock) = (self.schema, requestUserId(), requestClock())
        var results: [JSONValue] = []
        var hasErrors = false
        for request in requests {
            if haltOnError && hasErrors {
                results.append([
                    "statusCode": 412,
                    "result": [APIError(412, "BATCH_PROCESSING_HALTED", "Batch processing halted per request").resourceJSON],
                ])
                continue
            }
            guard let method = request["method"]?.stringValue, let url = request["url"]?.stringValue else {
                throw APIError(400, "INVALID_INPUT", "Each batch request needs method and url")
            }
            let path = url.hasPrefix("/services/data/") ? url : "/services/data/" + (url.hasPrefix("/") ? String(url.dropFirst()) : url)
            let input: JSONValue? = if let value = request["richInput"], !value.isNull { value } else { .none }
            let subrequest = Subrequest(method: method.uppercased() == "PUT" ? "PATCH" : method.uppercased(), url: path, body: input)
            let response: APIResponse
            do {
                response = try await database.write { db in try subrequest.run(schema: schema, db: db, userId: userId, clock: clock).0 }
            } catch let error as APIError {
                response = .error(error)
            }
            if response.status >= 400 { hasErrors = true }
            let result: JSONValue = response.body.isEmpty ? .null : ((try? JSONValue(parsing: response.body)) ?? .null)
            results.append(["statusCode": .int(Int64(response.status)), "result": result])
        }
        return .json(["hasErrors": .bool(hasErrors), "results": .array(results)])
    }
}
