import Hummingbird
import NIOConcurrencyHelpers
import NIOCore

/// Reads a request body while a watchdog checks its pace: once
/// ``LocalForceServer/Limits/bodyGracePeriod`` has passed, the body must have arrived at
/// ``LocalForceServer/Limits/minimumBodyRate`` on average, or the read gives up (`tooSlow`).
///
/// The read runs in a task of its own, so that giving up does not wait for a client that sends
/// nothing more: the caller answers and closes the connection, which ends that task.
enum BodyReader {
    enum Outcome: Sendable {
        case complete(ByteBuffer)
        case tooLarge
        case tooSlow
        case incomplete
    }

    static func read(_ body: RequestBody, limit: Int, limits: LocalForceServer.Limits) async -> Outcome {
        let arrived = NIOLockedValueBox(0)
        let waiter = NIOLockedValueBox<CheckedContinuation<Outcome, Never>?>(nil)
        let finish: @Sendable (Outcome) -> Void = { outcome in
            waiter.withLockedValue { slot in
                let continuation = slot
                slot = nil
                return continuation
            }?.resume(returning: outcome)
        }
        return await withCheckedContinuation { continuation in
            waiter.withLockedValue { $0 = continuation }
            Task {
                var buffer = ByteBuffer()
                do {
                    for try await var chunk in body {
                        guard buffer.readableBytes + chunk.readableBytes <= limit else {
                            finish(.tooLarge)
                            return
                        }
                        buffer.writeBuffer(&chunk)
                        let total = buffer.readableBytes
                        arrived.withLockedValue { $0 = total }
                    }
                    finish(.complete(buffer))
                } catch {
                    finish(.incomplete)
                }
            }
            Task {
                let start = ContinuousClock.now
                // Checks every quarter second, and stops once the read has ended either way.
                while waiter.withLockedValue({ $0 != nil }) {
                    try? await Task.sleep(for: .milliseconds(250))
                    let late = start.duration(to: .now) - limits.bodyGracePeriod
                    guard late > .zero else { continue }
                    let (seconds, attoseconds) = late.components
                    let owed = (Double(seconds) + Double(attoseconds) / 1e18) * Double(limits.minimumBodyRate)
                    if Double(arrived.withLockedValue { $0 }) < owed { finish(.tooSlow) }
                }
            }
        }
    }
}
