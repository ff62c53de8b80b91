import Crypto
import NIOConcurrencyHelpers
import SalesforceWire

/// Who a token or code speaks for: a user, through a connected app.
struct OAuthGrant: Sendable, Equatable {
    /// The user's id (`005…`).
    var userId: String
    /// The connected app's client id.
    var clientId: String
    /// The scopes granted, space-separated.
    var scope: String
}

/// An authorization request between the login form and the consent page: what the app asked
/// for and who logged in.
struct PendingAuthorization: Sendable {
    var grant: OAuthGrant
    var redirectURI: String
    var state: String?
    var codeChallenge: String?
}

/// The tokens the org has issued: access tokens (they expire), refresh tokens (until revoked),
/// authorization codes (one use, ten minutes) and consent tickets (one use, ten minutes).
///
/// A code used a second time revokes the tokens its first use gave (RFC 6749 §4.1.2: someone
/// else holds the code, and may hold those tokens); used codes are remembered for a day.
///
/// Kept in memory, by the SHA-256 of each token (a lookup never compares secrets byte by byte
/// with early exit): a restarted server has forgotten every session, as an org whose sessions
/// were all revoked. Each table is bounded; beyond its bound the expired entries go first, then
/// the oldest.
final class OAuthSessions: Sendable {
    private struct AccessEntry {
        var grant: OAuthGrant
        var expiresAt: Int64
        var refreshKey: String?
    }

    private struct RefreshEntry {
        var grant: OAuthGrant
        var issuedAt: Int64
    }

    private struct CodeEntry {
        var authorization: PendingAuthorization
        var expiresAt: Int64
    }

    /// A code already exchanged, with what the exchange gave.
    private struct SpentCode {
        var expiresAt: Int64
        var accessKey: String?
        var refreshKey: String?
        /// Used again: an exchange of its first use still running gets no tokens.
        var reused = false
    }

    private struct State {
        var access: [String: AccessEntry] = [:]
        var refresh: [String: RefreshEntry] = [:]
        var codes: [String: CodeEntry] = [:]
        var spentCodes: [String: SpentCode] = [:]
        var tickets: [String: CodeEntry] = [:]
        var grantsIssued: [String: Int] = [:]
    }

    /// How long an access token lives (ms).
    let accessLifetime: Int64
    /// How long a code or consent ticket lives (ms): ten minutes, as Salesforce's codes.
    static let codeLifetime: Int64 = 600_000
    /// How long a used code is remembered (ms), to revoke its tokens if it comes again.
    static let spentCodeMemory: Int64 = 86_400_000
    /// Most live entries per table.
    static let capacity = 100_000
    private let state = NIOLockedValueBox(State())

    init(accessLifetime: Int64) {
        self.accessLifetime = accessLifetime
    }

    /// A new access token (and refresh token when `withRefreshToken`) for `grant`, counted
    /// under `grantType`.
    func issue(_ grant: OAuthGrant, withRefreshToken: Bool, grantType: String, now: Int64) -> (access: String, refresh: String?) {
        let tokens = Self.newTokens(withRefreshToken: withRefreshToken)
        state.withLockedValue { state in store(tokens, for: grant, grantType: grantType, now: now, in: &state) }
        return tokens
    }

    /// The tokens of an authorization code's exchange (which ``redeemCode(_:now:)`` took), or
    /// `nil` when the code came again while this exchange ran: its first use gets nothing then.
    func issue(_ grant: OAuthGrant, withRefreshToken: Bool, exchanging code: String, now: Int64) -> (access: String, refresh: String?)? {
        let tokens = Self.newTokens(withRefreshToken: withRefreshToken)
        let key = Self.key(code)
        return state.withLockedValue { state in
            if let spent = state.spentCodes[key] {
                guard !spent.reused else { return nil }
                state.spentCodes[key]?.accessKey = Self.key(tokens.access)
                state.spentCodes[key]?.refreshKey = tokens.refresh.map(Self.key)
            }
            store(tokens, for: grant, grantType: "authorization_code", now: now, in: &state)
            return tokens
        }
    }

    private static func newTokens(withRefreshToken: Bool) -> (access: String, refresh: String?) {
        (Self.token(prefix: "00D000000000001!", bytes: 48), withRefreshToken ? Self.token(prefix: "5Aep", bytes: 48) : nil)
    }

    private func store(
        _ tokens: (access: String, refresh: String?), for grant: OAuthGrant, grantType: String, now: Int64, in state: inout State
    ) {
        let refreshKey = tokens.refresh.map(Self.key)
        if let refreshKey {
            Self.makeRoom(&state.refresh, now: now) { $0.issuedAt }
            state.refresh[refreshKey] = RefreshEntry(grant: grant, issuedAt: now)
        }
        Self.makeRoom(&state.access, now: now, expired: { $0.expiresAt <= now }, age: { $0.expiresAt })
        state.access[Self.key(tokens.access)] = AccessEntry(grant: grant, expiresAt: now + accessLifetime, refreshKey: refreshKey)
        state.grantsIssued[grantType, default: 0] += 1
    }

    /// The grant of a live access token.
    func grant(forAccessToken token: String, now: Int64) -> OAuthGrant? {
        state.withLockedValue { state in
            guard let entry = state.access[Self.key(token)], entry.expiresAt > now else { return nil }
            return entry.grant
        }
    }

    /// A new access token (and its grant) for a refresh token the app holds, or `nil` when it
    /// is unknown, revoked or another app's. One lock for the check and the issue: a revoke
    /// cannot slip between them and leave a live token behind.
    func refresh(_ token: String, clientId: String, now: Int64) -> (access: String, grant: OAuthGrant)? {
        let refreshKey = Self.key(token)
        let access = Self.token(prefix: "00D000000000001!", bytes: 48)
        return state.withLockedValue { state in
            guard let grant = state.refresh[refreshKey]?.grant, grant.clientId == clientId else { return nil }
            Self.makeRoom(&state.access, now: now, expired: { $0.expiresAt <= now }, age: { $0.expiresAt })
            state.access[Self.key(access)] = AccessEntry(grant: grant, expiresAt: now + accessLifetime, refreshKey: refreshKey)
            state.grantsIssued["refresh_token", default: 0] += 1
            return (access, grant)
        }
    }

    /// Revokes an access token, or a refresh token and every access token issued from it.
    /// - Returns: whether the token was known.
    func revoke(_ token: String) -> Bool {
        let key = Self.key(token)
        return state.withLockedValue { state in
            if state.access.removeValue(forKey: key) != nil { return true }
            return Self.revoke(refreshKey: key, in: &state)
        }
    }

    private static func revoke(refreshKey key: String, in state: inout State) -> Bool {
        guard state.refresh.removeValue(forKey: key) != nil else { return false }
        state.access = state.access.filter { $0.value.refreshKey != key }
        return true
    }

    /// Makes every access token expire now (refresh tokens stay valid): a test's way to reach
    /// the end of a session without waiting for it.
    func expireAccessTokens() {
        state.withLockedValue { $0.access.removeAll() }
    }

    /// How many tokens each grant type has issued (`authorization_code`, `refresh_token`, …).
    func grantsIssued(_ grantType: String) -> Int {
        state.withLockedValue { $0.grantsIssued[grantType] ?? 0 }
    }

    /// A one-use authorization code for a consented request.
    func issueCode(for authorization: PendingAuthorization, now: Int64) -> String {
        issueOneUse(authorization, prefix: "aPrx", in: \.codes, now: now)
    }

    /// Takes a code (it never works twice, whatever happens next). A code used before gives
    /// nothing and revokes the tokens its first use gave: the access token, the refresh token
    /// and every access token refreshed from it.
    func redeemCode(_ code: String, now: Int64) -> PendingAuthorization? {
        let key = Self.key(code)
        return state.withLockedValue { state in
            if var spent = state.spentCodes[key], spent.expiresAt > now {
                if let access = spent.accessKey { state.access[access] = nil }
                if let refresh = spent.refreshKey { _ = Self.revoke(refreshKey: refresh, in: &state) }
                spent.reused = true
                spent.accessKey = nil
                spent.refreshKey = nil
                state.spentCodes[key] = spent
                return nil
            }
            guard let entry = state.codes.removeValue(forKey: key) else { return nil }
            Self.makeRoom(&state.spentCodes, now: now, expired: { $0.expiresAt <= now }, age: { $0.expiresAt })
            state.spentCodes[key] = SpentCode(expiresAt: now + Self.spentCodeMemory)
            guard entry.expiresAt > now else { return nil }
            return entry.authorization
        }
    }

    /// A one-use ticket carrying a logged-in request to its consent page.
    func issueTicket(for authorization: PendingAuthorization, now: Int64) -> String {
        issueOneUse(authorization, prefix: "", in: \.tickets, now: now)
    }

    /// Takes a consent ticket.
    func redeemTicket(_ ticket: String, now: Int64) -> PendingAuthorization? {
        redeemOneUse(ticket, from: \.tickets, now: now)
    }

    /// A new random token for `authorization` in `table`, good once for ``codeLifetime``.
    private func issueOneUse(
        _ authorization: PendingAuthorization, prefix: String, in table: WritableKeyPath<State, [String: CodeEntry]>, now: Int64
    ) -> String {
        let token = Self.token(prefix: prefix, bytes: 32)
        state.withLockedValue { state in
            Self.makeRoom(&state[keyPath: table], now: now, expired: { $0.expiresAt <= now }, age: { $0.expiresAt })
            state[keyPath: table][Self.key(token)] = CodeEntry(authorization: authorization, expiresAt: now + Self.codeLifetime)
        }
        return token
    }

    /// Removes a token from `table` and returns its authorization when it was live.
    private func redeemOneUse(_ token: String, from table: WritableKeyPath<State, [String: CodeEntry]>, now: Int64) -> PendingAuthorization?
    {
        state.withLockedValue { state in
            guard let entry = state[keyPath: table].removeValue(forKey: Self.key(token)), entry.expiresAt > now else { return nil }
            return entry.authorization
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// The table's key for a token: its SHA-256, in hex.
    private static func key(_ token: String) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in SHA256.hash(data: Array(token.utf8)) {
            text.append(hexDigits[Int(byte >> 4)])
            text.append(hexDigits[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static func token(prefix: String, bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return prefix + Base64URL.encode((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// Keeps a table under ``capacity``: when full, drops expired entries, then the oldest,
    /// down to nine tenths of it (so the sweep runs once per tenth of the capacity, not on
    /// every insert).
    private static func makeRoom<Entry>(
        _ table: inout [String: Entry], now: Int64, expired: (Entry) -> Bool = { _ in false }, age: (Entry) -> Int64
    ) {
        guard table.count >= capacity else { return }
        table = table.filter { !expired($0.value) }
        let target = capacity / 10 * 9
        guard table.count > target else { return }
        let oldest = table.sorted { age($0.value) < age($1.value) }.prefix(table.count - target).map(\.key)
        for key in oldest { table[key] = nil }
    }
}
