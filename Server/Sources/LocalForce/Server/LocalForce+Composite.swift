import FastJSON
import Foundation
import SalesforceWire

extension LocalForce {
    /// `/composite` (references, allOrNone), `/composite/batch`, `/composite/tree/{T}`, `/composite/sobjects…` (collections).
    func composite(_ context: RequestContext) async throws -> APIResponse {
        switch context.path.count {
        case 1: return try await compositeRequest(context)
        case 2 where context.path[1] == "batch": return try await compositeBatch(context)
        case 3 where context.path[1] == "tree": return try await tree(context)
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
        let runner = CompositeRunner(schema: schema, userId: requestUserId(), clock: requestClock())
        let source = captureSource(version: context.version, userId: runner.userId, clock: runner.clock)
        let (results, cursors) =
            allOrNone
            ? try await runInOneTransaction(items, runner: runner, source: source)
            : try await runEachOnItsOwn(items, runner: runner, source: source)
        try await self.cursors.register(cursors)
        return .json(bytes: Self.compositeResponse(results))
    }

    /// How one `/composite` request resolves and runs its items.
    private struct CompositeRunner: Sendable {
        let schema: Schema
        let userId: String
        let clock: WriteClock

        /// The item with its references resolved; `nil` when it depends on a failed item.
        func resolve(_ item: CompositeItem, _ references: CompositeReferences) throws(APIError) -> Subrequest? {
            var subrequest = item.subrequest
            let texts = [subrequest.url] + (subrequest.body.map { [$0.jsonString] } ?? [])
            if references.dependsOnFailure(texts) { return nil }
            var expansion = CompositeReferences.Expansion()
            subrequest.url = try references.resolve(url: subrequest.url, expansion: &expansion)
            if let body = subrequest.body { subrequest.body = try references.resolve(body: body, expansion: &expansion) }
            return subrequest
        }

        /// Runs one resolved item (or answers its failure).
        func run(_ db: any SQLConnection, _ subrequest: Subrequest, _ capture: ChangeCapture?) throws -> (APIResponse, Subrequest.Cursors) {
            do {
                return try subrequest.run(schema: schema, db: db, userId: userId, clock: clock, capture: capture)
            } catch let error as APIError {
                return (.error(error), [])
            }
        }

        /// Resolves and runs one item inside a transaction (allOrNone: references see the
        /// transaction's own writes).
        func step(_ db: any SQLConnection, _ item: CompositeItem, _ references: CompositeReferences, _ capture: ChangeCapture?) throws
            -> (APIResponse, Subrequest.Cursors)
        {
            do {
                guard let subrequest = try resolve(item, references) else { return (.error(LocalForce.halted), []) }
                return try run(db, subrequest, capture)
            } catch let error as APIError {
                return (.error(error), [])
            }
        }
    }

    /// allOrNone: every item in one transaction (one capture, one transaction key); the first
    /// failure rolls all back and the others answer PROCESSING_HALTED.
    private func runInOneTransaction(_ items: [CompositeItem], runner: CompositeRunner, source: CaptureSource?) async throws
        -> ([(String, APIResponse)], Subrequest.Cursors)
    {
        do {
            return try await database.write(capturing: source) { db, capture -> ([(String, APIResponse)], Subrequest.Cursors) in
                var references = CompositeReferences()
                var done: [(String, APIResponse)] = []
                var pending: Subrequest.Cursors = []
                for (index, item) in items.enumerated() {
                    let (response, opened) = try runner.step(db, item, references, capture)
                    done.append((item.referenceId, response))
                    if response.status >= 400 { throw RollBack(results: done, failedIndex: index) }
                    pending += opened
                    references.record(item.referenceId, status: response.status, body: response.body)
                }
                return (done, pending)
            }
        } catch let rollback as RollBack {
            let results = items.enumerated().map { index, item in
                index == rollback.failedIndex ? rollback.results[index] : (item.referenceId, .error(Self.halted))
            }
            return (results, [])
        }
    }

    /// Each item committed on its own. References are resolved outside any transaction, and a
    /// read runs on a read connection, never holding the org's write lock.
    private func runEachOnItsOwn(_ items: [CompositeItem], runner: CompositeRunner, source: CaptureSource?) async throws
        -> ([(String, APIResponse)], Subrequest.Cursors)
    {
        var results: [(String, APIResponse)] = []
        var cursors: Subrequest.Cursors = []
        var references = CompositeReferences()
        for item in items {
            let response: APIResponse
            let opened: Subrequest.Cursors
            do {
                if let subrequest = try runner.resolve(item, references) {
                    (response, opened) =
                        subrequest.method == "GET"
                        ? try await database.read { db in try runner.run(db, subrequest, nil) }
                        : try await database.write(capturing: source) { db, capture in try runner.run(db, subrequest, capture) }
                } else {
                    (response, opened) = (.error(Self.halted), [])
                }
            } catch let error as APIError {
                (response, opened) = (.error(error), [])
            }
            results.append((item.referenceId, response))
            cursors += opened
            references.record(item.referenceId, status: response.status, body: response.body)
        }
        return (results, cursors)
    }

    /// `{"compositeResponse": [{"body", "httpHeaders", "httpStatusCode", "referenceId"}, …]}`,
    /// each body written as it came.
    private static func compositeResponse(_ results: [(String, APIResponse)]) -> [UInt8] {
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
        return writer.bytes
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
        let source = captureSource(version: context.version, userId: userId, clock: clock)
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
                let work: @Sendable (any SQLConnection, ChangeCapture?) throws -> (APIResponse, Subrequest.Cursors) = { db, capture in
                    try subrequest.run(schema: schema, db: db, userId: userId, clock: clock, capture: capture)
                }
                // A read runs on a read connection, never holding the org's write lock.
                let (answer, opened) =
                    subrequest.method == "GET"
                    ? try await database.read { db in try work(db, nil) } : try await database.write(capturing: source, work)
                try await cursors.register(opened)
                response = answer
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
