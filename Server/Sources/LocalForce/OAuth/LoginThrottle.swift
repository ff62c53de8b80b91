import NIOConcurrencyHelpers

/// Failed password logins, counted per user and per connected app, and the logins they stop.
///
/// As a Salesforce org's default password policy: a user with ``maximumUserFailures`` failures
/// in a row is locked out for ``lockout``, and even the right password fails until then (a
/// success before that resets the count). An app whose logins failed ``maximumClientFailures``
/// times within ``lockout`` (for any users, known or not) gets no password login until that
/// window ends: a guessing run spread over many user names is slowed too. Both answer as a
/// wrong password does, so a lockout says nothing about which names exist.
final class LoginThrottle: Sendable {
    /// Failures in a row that lock a user (Salesforce's default "Maximum invalid login attempts").
    static let maximumUserFailures = 10
    /// Failures within ``lockout`` that stop an app's password logins.
    static let maximumClientFailures = 100
    /// How long a lockout lasts (ms): Salesforce's default "Lockout effective period", 15 minutes.
    static let lockout: Int64 = 900_000

    private struct Failures {
        var count = 0
        /// For a user: when the lockout ends. For an app: when its counting window ends.
        var until: Int64 = 0
    }

    private struct State {
        var users: [String: Failures] = [:]
        var clients: [String: Failures] = [:]
    }

    private let state = NIOLockedValueBox(State())

    /// Whether a password login of `user` (a known user's id, or nil) through `client` may be
    /// checked at all now.
    func allows(user: String?, client: String, now: Int64) -> Bool {
        state.withLockedValue { state in
            if let failures = state.clients[client], failures.until > now, failures.count >= Self.maximumClientFailures { return false }
            guard let user, let failures = state.users[user] else { return true }
            return failures.count < Self.maximumUserFailures || failures.until <= now
        }
    }

    /// Counts a wrong password (or an unknown user) against `user` and `client`.
    func failed(user: String?, client: String, now: Int64) {
        state.withLockedValue { state in
            var app = state.clients[client] ?? Failures()
            if app.until <= now { app = Failures(count: 0, until: now + Self.lockout) }
            app.count += 1
            state.clients[client] = app
            guard let user else { return }
            var failures = state.users[user] ?? Failures()
            // A lockout that has ended starts a new count.
            if failures.count >= Self.maximumUserFailures, failures.until <= now { failures = Failures() }
            failures.count += 1
            if failures.count >= Self.maximumUserFailures { failures.until = now + Self.lockout }
            state.users[user] = failures
        }
    }

    /// A right password: the user's count starts again.
    func succeeded(user: String) {
        state.withLockedValue { _ = $0.users.removeValue(forKey: user) }
    }
}
