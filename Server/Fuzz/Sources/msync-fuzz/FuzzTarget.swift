import Foundation

/// One thing to fuzz: it takes any bytes, and may fail only by throwing or returning, never by
/// crashing. A broken invariant it checks (a round trip, say) is reported with `fatalError`,
/// which libFuzzer records as a crash with the input that caused it.
protocol FuzzTarget: Sendable {
    func run(_ data: [UInt8])
}

/// Runs async work to completion from libFuzzer's synchronous callback.
func blocking<T: Sendable>(_ operation: @escaping @Sendable () async -> T) -> T {
    let result = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        result.set(await operation())
        done.signal()
    }
    done.wait()
    guard let value = result.get() else { fatalError("async operation ended without a result") }
    return value
}

/// A value handed from a task to the thread that waits for it.
final class ResultBox<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: T?

    func set(_ newValue: T) { lock.withLock { value = newValue } }
    func get() -> T? { lock.withLock { value } }
}
