import Foundation

/// A value that many tasks and threads share, reached only while a lock is held.
///
/// The package's one lock type: a class that keeps mutable state across threads holds it in a
/// `Locked` and stays checked `Sendable`, instead of carrying its own lock and an
/// `@unchecked Sendable`. The lock is held for the closure only, so closures stay short and
/// never `await` (they are synchronous).
///
/// <!-- snippet: Tests/LockingTests/LockedTests.swift#counter -->
/// ```swift
/// let requests = Locked(0)
/// requests.withLock { $0 += 1 }
/// ```
package final class Locked<Value: Sendable>: @unchecked Sendable {
    // Safe to share: every read and write of `value` happens inside `lock`.
    private let lock = NSLock()
    private var value: Value

    /// Wraps `value`.
    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value while holding the lock; what `body` returns is returned.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// A copy of the value as it is now.
    package var current: Value {
        withLock { $0 }
    }
}
