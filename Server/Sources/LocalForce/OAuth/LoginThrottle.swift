import NIOConcurrencyHelpers

/// Failed password logins, counted per user and per connected app, and the logins they stop.
///
/// As a Salesforce org's default password policy: a user with ``maximumUserFailures`` failures
/// in a row is locked out for ``lockout``, and even the right password fails until then (a
/// success before that resets the count). An app whose logins failed ``maximumClientFailures``
/// times (for any users, known or not; a refused attempt counts too) is stopped for
/// ``lockout`` from its last counted failure, so a guessing run spread over many user names is
/// slowed. Both answer as a wrong password does, and every refused attempt counts against the
/// app alike, so a lockout says nothing about which names exist. The check, the comparison
/// and the count happen under one lock: parallel guesses cannot slip past the limit.
final class LoginThrottle: Sendable {
    /// Failures in a row that lock a user (Salesforce's default "Maximum invalid login attempts").
    static let maximumUserFailures = 10
    /// Failures within ``lockout`` of each other that stop an app's password logins.
    static let maximumClientFailures = 100
    /// How long a lockout lasts (ms): Salesforce's default "Lockout effective period", 15 minutes.
    static let lockout: Int64 = 900_000

    private struct Failures {
        var count = 0
        /// When the count lapses (an app's) or the lockout ends (a user's, once locked).
        var until: Int64 = 0
    }

    private struct State {
        var users: [String: Failures] = [:]
        var clients: [String: Failures] = [:]
    }

    private let state = NIOLockedValueBox(State())

    /// A password login of `user` (a known user's id, or nil for a name no user has) through
    /// `client`: whether it succeeds. `passwordMatches` is called only when neither is locked
    /// out, under the lock (it must be quick: a constant-time comparison).
    func attempt(user: String?, client: String, now: Int64, passwordMatches: () -> Bool) -> Bool {
        state.withLockedValue { state in
            var app = state.clients[client] ?? Failures()
            if app.until <= now { app = Failures() }
            var failures = user.flatMap { state.users[$0] } ?? Failures()
            // A lockout that has ended starts a new count.
            if failures.count >= Self.maximumUserFailures, failures.until <= now { failures = Failures() }
            let locked = app.count >= Self.maximumClientFailures || failures.count >= Self.maximumUserFailures
            if !locked, let user, passwordMatches() {
                state.users[user] = nil
                return true
            }
            // Every refusal counts against the app, and keeps it stopped for another period.
            app.count += 1
            app.until = now + Self.lockout
            state.clients[client] = app
            if let user, !locked {
                failures.count += 1
                if failures.count >= Self.maximumUserFailures { failures.until = now + Self.lockout }
                state.users[user] = failures
            }
            return false
        }
    }
}
