import NIOConcurrencyHelpers

/// Wakes long polls waiting for events: at once for this process's commits (``wake()``), and,
/// on a database other processes share, when ``StreamingHub``'s poller sees a newer replay id.
final class EventSignal: Sendable {
    private struct Waiter {
        var continuation: CheckedContinuation<Void, Never>
        /// Ends the wait at its timeout; cancelled when the wait ends sooner, so that a burst of
        /// short waits does not leave a sleeping task per wait behind.
        var timer: Task<Void, Never>?
    }

    private struct State {
        var generation: UInt64 = 0
        var waiters: [UInt64: Waiter] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state = NIOLockedValueBox(State())

    /// Increases with every wake: a waiter that saw generation `g` returns at once when it has moved.
    var generation: UInt64 { state.withLockedValue { $0.generation } }

    /// Wakes every waiter.
    func wake() {
        let waiters = state.withLockedValue { state in
            state.generation &+= 1
            let waiting = Array(state.waiters.values)
            state.waiters = [:]
            return waiting
        }
        for waiter in waiters {
            waiter.timer?.cancel()
            waiter.continuation.resume()
        }
    }

    /// Returns after a wake past `generation`, after `timeout`, or when the task is cancelled.
    func wait(since generation: UInt64, timeout: Duration) async {
        let key = state.withLockedValue { state -> UInt64 in
            state.nextWaiter &+= 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let registered = state.withLockedValue { state -> Bool in
                    guard state.generation == generation, !Task.isCancelled else { return false }
                    state.waiters[key] = Waiter(continuation: continuation, timer: nil)
                    return true
                }
                guard registered else { return continuation.resume() }
                let timer = Task { [weak self] in
                    try? await Task.sleep(for: timeout)
                    if !Task.isCancelled { self?.release(key) }
                }
                let kept = state.withLockedValue { state -> Bool in
                    guard state.waiters[key] != nil else { return false }
                    state.waiters[key]?.timer = timer
                    return true
                }
                if !kept { timer.cancel() }
            }
        } onCancel: {
            release(key)
        }
    }

    private func release(_ key: UInt64) {
        guard let waiter = state.withLockedValue({ $0.waiters.removeValue(forKey: key) }) else { return }
        waiter.timer?.cancel()
        waiter.continuation.resume()
    }
}
