import FastJSON
import Foundation
import Logging
import NIOConcurrencyHelpers
import SOQL
import SalesforceWire

/// A Salesforce-REST-compatible server's logic, independent of the HTTP stack: hand it an
/// ``APIRequest`` and it answers with an ``APIResponse``. `LocalForceServer` puts it on a socket.
///
/// <!-- snippet: Server/Tests/DocumentationTests/SymbolReference.swift#localForce -->
/// ```swift
/// let localForce = try await LocalForce(database: try SQLiteDatabase(path: ":memory:"), token: "secret")
/// let server = try await LocalForceServer.start(localForce, host: "127.0.0.1", port: 0)
/// print(server.baseURL) // http://127.0.0.1:54321
/// ```
public final class LocalForce: Sendable {
    /// The objects served: the standard ones plus those of the schema file.
    public let schema: Schema
    /// Where the records are kept (SQLite, or PostgreSQL through `LocalForcePostgres`).
    public let database: any SQLDatabase
    /// The static bearer token: it acts as the API user, beside the tokens the OAuth endpoints
    /// issue. Every endpoint but the versions list and OAuth's authorize, token and revoke
    /// requires one or the other.
    public let token: String
    /// The API user: the static token's user, and the owner of what seeding creates.
    public let userId: String
    /// The connected apps and users of the OAuth endpoints.
    public let auth: AuthConfiguration
    /// This process's write stamps where writers run concurrently (see ``StampClock``).
    let stamps = StampClock()
    /// The tokens the OAuth endpoints issued.
    let sessions: OAuthSessions
    /// Failed password logins, and the lockouts they cause.
    let logins = LoginThrottle()
    /// The ids of ``auth``'s users, by lower-cased username.
    let authUserIds: [String: String]
    /// The URL the server was bound to (set by `LocalForceServer`): a JWT audience accepted.
    private let advertised = NIOLockedValueBox<String?>(nil)
    let cursors: QueryCursors
    /// Largest request body accepted (413 above).
    public let maximumBodySize: Int
    /// Memory that the bodies of concurrent large requests may take together, estimated as
    /// ``bodyMemoryFactor`` times each body's size; requests beyond it wait their turn.
    package let bodyMemory: MemoryBudget
    /// The bytes of large bodies still arriving (or inflating) together, a quarter of
    /// ``bodyMemory``'s capacity: taken as they arrive, never waited for (a request that does
    /// not fit is refused, 503), and given back once the body holds its parsing reservation.
    package let bodyArrival: MemoryBudget
    /// Parsing a JSON body and answering it takes about this many times the body's size.
    package static let bodyMemoryFactor = 16
    /// Bodies up to this size reserve nothing from the memory budget.
    package static let reservedBodyThreshold = 1 << 20
    /// When this server started (ms): the schema's `Last-Modified`.
    let startedAt: Int64
    /// The briefcase served by `/connect/briefcase/priming-records`.
    public let briefcaseRules: [BriefcaseRule]
    /// Opt-in fault injection (off by default).
    public let faults: FaultInjection
    /// The Streaming API's clients, wake-ups and retention.
    let streaming: StreamingHub
    /// The Bulk APIs' limits.
    public let bulk: BulkOptions
    /// Runs Bulk jobs in the background.
    let bulkWorker = BulkWorker()
    /// Added to the machine's clock for every time the server gives: record timestamps, date
    /// literals, the `Date` header (a server whose clock is ahead of or behind its clients').
    public let clockOffset: Duration
    private let clockOffsetMilliseconds: Int64
    /// Offsets are kept within ten years either way.
    static let maximumClockOffsetSeconds: Int64 = 10 * 366 * 86_400

    /// API versions served: 31.0 to 66.0.
    public static let versions: ClosedRange<Int> = 31...66

    /// Creates the org's tables in `database` (if missing) and its API user.
    ///
    /// - Parameters:
    ///   - schema: the org's objects and fields (the standard objects by default).
    ///   - database: where the org keeps its records: ``SQLiteDatabase`` (a file, or
    ///     `:memory:`), or PostgreSQL through the `LocalForcePostgres` module.
    ///   - token: the access token every request but the versions list must carry.
    ///   - briefcaseRules: the org's briefcases (which records each one primes).
    ///   - faults: fault injection for requests (errors, dropped connections, latency, late commits).
    ///   - maximumBodySize: the largest request body accepted (413 `REQUEST_TOO_LARGE` above).
    ///   - bodyMemoryBudget: the memory that concurrent large bodies may take together (each is
    ///     counted at 16 times its size); requests beyond it wait their turn. A quarter of it
    ///     more bounds the large bodies still arriving (503 `SERVER_UNAVAILABLE` beyond).
    ///   - cursorMemoryBudget: what the ids of open query cursors may take; the least recently
    ///     used cursors beyond it are dropped (`INVALID_QUERY_LOCATOR`).
    ///   - clockOffset: how far the server's clock is ahead of the machine's (negative: behind),
    ///     within ten years either way.
    ///   - auth: the connected apps and users of the OAuth endpoints (their users become `User`
    ///     records); ``AuthConfiguration/none`` leaves the static token as the only way in.
    ///   - accessTokenLifetime: how long an access token issued by the OAuth endpoints is valid
    ///     (two hours, Salesforce's default session timeout); then it answers 401
    ///     `INVALID_SESSION_ID`. At least one second, at most a year.
    ///   - streaming: what the Streaming API keeps for replay and how it long-polls; whether
    ///     writes publish change events.
    ///   - bulk: the Bulk APIs' limits (upload size, records per job) and how jobs are processed.
    public init(
        schema: Schema = .standard, database: any SQLDatabase, token: String, briefcaseRules: [BriefcaseRule] = [],
        faults: FaultInjection = FaultInjection(), maximumBodySize: Int = 64 << 20, bodyMemoryBudget: Int = 1 << 30,
        cursorMemoryBudget: Int = 64 << 20, clockOffset: Duration = .zero, auth: AuthConfiguration = .none,
        accessTokenLifetime: Duration = .seconds(7200), streaming: StreamingOptions = StreamingOptions(), bulk: BulkOptions = BulkOptions()
    ) async throws {
        self.bulk = bulk
        self.streaming = StreamingHub(options: streaming, database: database)
        let (seconds, attoseconds) = clockOffset.components
        let limit = Self.maximumClockOffsetSeconds
        self.clockOffsetMilliseconds = max(-limit, min(limit, seconds)) * 1000 + attoseconds / 1_000_000_000_000_000
        self.clockOffset = .milliseconds(clockOffsetMilliseconds)
        self.briefcaseRules = briefcaseRules
        self.faults = faults
        self.schema = schema
        self.database = database
        self.cursors = QueryCursors(shared: database.isShared ? database : nil, maximumBytes: cursorMemoryBudget)
        self.token = token
        self.maximumBodySize = maximumBodySize
        self.bodyMemory = MemoryBudget(capacity: bodyMemoryBudget)
        self.bodyArrival = MemoryBudget(capacity: max(1, bodyMemoryBudget / 4))
        let started = LocalForce.nowMilliseconds() + clockOffsetMilliseconds
        self.startedAt = started
        self.auth = auth
        self.sessions = OAuthSessions(accessLifetime: Self.milliseconds(accessTokenLifetime))
        let clock = WriteClock(now: started)
        (self.userId, self.authUserIds) = try await database.write { db in
            try StorageSchema.create(schema, on: db)
            let api = try Self.ensureUser(
                AuthConfiguration.User(username: LocalForce.apiUsername, password: "-", firstName: "API", lastName: "User"),
                schema: schema, db: db, creator: nil, clock: clock)
            var ids: [String: String] = [:]
            for user in auth.users {
                ids[user.username.lowercased()] = try Self.ensureUser(user, schema: schema, db: db, creator: api, clock: clock)
            }
            return (api, ids)
        }
        bulkWorker.attach(
            claim: { [weak self] owner in await self?.claimBulkJob(owner: owner) },
            run: { [weak self] id, owner in await self?.runBulkJob(id, owner: owner) })
        // Jobs a previous run of the org left unfinished resume: now, and once more when the
        // claims of a process that just died have gone stale.
        bulkWorker.kick()
        let delay = bulk.claimTimeout + .milliseconds(100)
        Task { [weak self] in
            try? await Task.sleep(for: delay)
            self?.bulkWorker.kick()
        }
    }

    static let apiUsername = "api@localforce.invalid"

    /// Records the URL a server serves this org at: JWT assertions addressed to it are
    /// accepted (besides Salesforce's login URLs and the configuration's audiences).
    package func advertise(_ url: String) {
        advertised.withLockedValue { $0 = url }
    }

    /// The URL given to ``advertise(_:)``, if any.
    var advertisedURL: String? { advertised.withLockedValue { $0 } }

    static func nowMilliseconds() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// The server's clock (ms): the machine's plus ``clockOffset``.
    package func currentTime() -> Int64 { Self.nowMilliseconds() + clockOffsetMilliseconds }

    /// While a late commit's request runs: when it arrived, the time its writes keep.
    @TaskLocal static var arrivalTime: Int64?

    /// The time a request's writes and date literals use: its arrival for a late commit (see
    /// ``FaultInjection/scheduleLateCommit(delay:count:matching:)``), else ``currentTime()``.
    /// Read it before entering a database closure: task locals stay on this side.
    func requestClock() -> WriteClock {
        if let arrival = Self.arrivalTime { return WriteClock(now: arrival, frozen: true, stamps: stamps) }
        return WriteClock(now: currentTime(), stamps: stamps)
    }

    /// Answers one request. Never throws: every failure becomes a Salesforce error response.
    public func handle(_ request: APIRequest) async -> APIResponse {
        // Whatever the outcome: a composite whose first items committed may fail afterwards.
        defer {
            if request.method != "GET", request.method != "HEAD", request.segments.first != "cometd" {
                streaming.afterWrite(now: currentTime())
            }
        }
        let response: APIResponse
        do {
            response = try await route(request)
        } catch let error as APIError {
            response = .error(error)
        } catch {
            response = .error(Self.unexpected(error))
        }
        guard let transform = await faults.tamper(for: request) else { return response }
        return await FaultInjection.tampered(response, by: transform)
    }

    private static let logger = Logger(label: "LocalForce")

    /// Salesforce's answer to a failure inside the server: an ErrorId to quote, while the details
    /// (which may hold storage messages) go to the log only.
    package static func unexpected(_ error: any Error) -> APIError {
        let errorId = "\(UInt32.random(in: 100_000_000...999_999_999))-\(UInt16.random(in: 10_000...65_535))"
        logger.error("request failed", metadata: ["errorId": "\(errorId)", "error": "\(error)"])
        return APIError(
            500, "UNKNOWN_EXCEPTION", "An unexpected error occurred. Please include this ErrorId if you contact support: \(errorId)")
    }

    private func route(_ request: APIRequest) async throws -> APIResponse {
        if let oauth = try await oauthRoute(request) { return oauth }
        if request.segments.first == "cometd" {
            guard streaming.options.servesStreamingAPI else { throw APIError.notFound }
            guard let user = authenticatedUser(request) else { throw APIError.invalidSession }
            return try await streamingRoute(request, user: user)
        }
        if request.segments.count > 1, request.segments[0] == "services", request.segments[1] == "async" {
            return await classicRoute(request)
        }
        if request.segments.first == "api" {
            guard let user = authenticatedUser(request) else { throw APIError.invalidSession }
            return try await Self.$sessionUserId.withValue(user) { try await pagingAPI(request) }
        }
        guard request.segments.count >= 2, request.segments[0] == "services", request.segments[1] == "data" else { throw APIError.notFound }
        let path = Array(request.segments.dropFirst(2))
        guard let versionSegment = path.first else {
            guard request.method == "GET" else {
                throw APIError(405, "METHOD_NOT_ALLOWED", "HTTP Method '\(request.method)' not allowed. Allowed are GET")
            }
            return versionsList()
        }
        guard let user = authenticatedUser(request) else { throw APIError.invalidSession }
        guard let version = Self.version(versionSegment) else { throw APIError.notFound }
        let context = RequestContext(request: request, version: version, path: Array(path.dropFirst()))
        return try await Self.$sessionUserId.withValue(user) { try await dataRoute(context) }
    }

    /// `/services/data/vNN.N/…` for an authenticated request.
    private func dataRoute(_ context: RequestContext) async throws -> APIResponse {
        let version = context.version
        switch context.path.first {
        case nil: return try context.only("GET") { resources(version, request: context.request) }
        case "sobjects": return try await sObjects(context)
        case "query": return try await query(context, includeDeleted: false)
        case "queryAll": return try await query(context, includeDeleted: true)
        case "limits": return try context.only("GET") { limits() }
        case "composite": return try await composite(context)
        case "search": return try await search(context)
        case "parameterizedSearch": return try await parameterizedSearch(context)
        case "recent": return try await recent(context)
        case "connect": return try await primingRecords(context)
        case "ui-api": return try await layout(context)
        case "jobs": return try await bulkRoute(context)
        default: throw APIError.notFound
        }
    }

    /// Whether a request may go further than an authentication error: it carries a live token,
    /// or asks for one of the endpoints open to all (the versions list, OAuth's authorize, token
    /// and revoke).
    package func admits(_ request: APIRequest) -> Bool {
        let segments = request.segments
        let isVersionsList = segments.count == 2 && segments[0] == "services" && segments[1] == "data"
        return isVersionsList || Self.isOpenOAuthEndpoint(segments) || authenticatedUser(request) != nil
    }

    /// The largest body a request may send: ``maximumBodySize`` with a live token, and 64 KiB
    /// (a form) for the OAuth endpoints open without one, so that nobody without a token can
    /// hold the body memory budget.
    package func bodyLimit(for request: APIRequest) -> Int {
        authenticatedUser(request) == nil ? min(maximumBodySize, OAuthForm.maximumBodySize) : maximumBodySize
    }

    /// The user a request's token speaks for: the API user for the static token, the grant's
    /// user for a live OAuth access token; `nil` without a (live) token.
    /// The Bulk API 1.0 (`/services/async/…`) takes the token in `X-SFDC-Session` too.
    func authenticatedUser(_ request: APIRequest) -> String? {
        let segments = request.segments
        if segments.count > 1, segments[0] == "services", segments[1] == "async", let session = request.headers["x-sfdc-session"] {
            return user(presenting: session)
        }
        guard let header = request.headers["authorization"] else { return nil }
        for scheme in ["Bearer ", "OAuth "] where header.hasPrefix(scheme) {
            return user(presenting: String(header.dropFirst(scheme.count)))
        }
        return nil
    }

    private func user(presenting presented: String) -> String? {
        if constantTimeEquals(presented, token) { return userId }
        return sessions.grant(forAccessToken: presented, now: currentTime())?.userId
    }

    func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
        let a = Array(lhs.utf8)
        let b = Array(rhs.utf8)
        var difference = a.count ^ b.count
        for index in 0..<max(a.count, b.count) {
            difference |= Int((index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0))
        }
        return difference == 0
    }

    /// `v59.0` → `59.0` when served.
    static func version(_ segment: String) -> String? {
        guard segment.hasPrefix("v"), segment.hasSuffix(".0"), let major = Int(segment.dropFirst().dropLast(2)),
            versions.contains(major)
        else { return nil }
        return "\(major).0"
    }

    private func versionsList() -> APIResponse {
        let seasons = ["Winter", "Spring", "Summer"]
        let list: [JSONValue] = Self.versions.map { version in
            let offset = version - 59
            let season = seasons[((offset % 3) + 3) % 3]
            let year = 24 + Int((Double(offset) / 3).rounded(.down))
            return [
                "label": .string("\(season) '\(year)"), "url": .string("/services/data/v\(version).0"), "version": .string("\(version).0"),
            ]
        }
        return .json(.array(list))
    }

    /// The resources of a version, with `identity`: the id URL of the token's user, as a real
    /// org lists it (clients made from an instance URL and a token find the user there).
    private func resources(_ version: String, request: APIRequest) -> APIResponse {
        let names = [
            "sobjects", "query", "queryAll", "search", "parameterizedSearch", "recent", "composite", "limits", "connect", "ui-api",
            "jobs",
        ]
        var resources = Dictionary(
            names.map { ($0, JSONValue.string("/services/data/v\(version)/\($0)")) }, uniquingKeysWith: { first, _ in first })
        resources["identity"] = .string("\(instanceURL(of: request))/id/\(Self.organizationId)/\(requestUserId())")
        return .json(.object(resources))
    }

    private func limits() -> APIResponse {
        .json([
            "DailyApiRequests": ["Max": 15000, "Remaining": 15000],
            "DataStorageMB": ["Max": 1024, "Remaining": 1024],
            "FileStorageMB": ["Max": 1024, "Remaining": 1024],
            "ConcurrentAsyncGetReportInstances": ["Max": 200, "Remaining": 200],
        ])
    }
}

/// A request with its API version and the path after it.
struct RequestContext {
    let request: APIRequest
    let version: String
    let path: [String]

    /// Runs `body` when the method is allowed, else 405.
    func only(_ methods: String..., body: () throws -> APIResponse) throws -> APIResponse {
        guard methods.contains(request.method) else {
            throw APIError(
                405, "METHOD_NOT_ALLOWED", "HTTP Method '\(request.method)' not allowed. Allowed are \(methods.joined(separator: ","))")
        }
        return try body()
    }
}
