import Hummingbird
import LocalForce
import NIOConcurrencyHelpers
import NIOCore

/// Reads a request body while a watchdog checks its pace: once
/// ``LocalForceServer/Limits/bodyGracePeriod`` has passed, the body must have delivered
/// ``LocalForceServer/Limits/minimumBodyRate`` bytes for every second beyond it, or the read
/// gives up (`tooSlow`).
///
/// The read and the watchdog are two child tasks: the first to decide wins and the other is
/// cancelled (a cancelled read ends the body's stream at once, so nothing waits for a client
/// that sends nothing more). A large body takes its bytes from ``LocalForce/bodyArrival`` as they
/// arrive, without waiting: when they do not fit, the read ends (`overloaded`).
enum BodyReader {
    enum Outcome: Sendable {
        /// The whole body, and what it holds of ``LocalForce/bodyArrival`` (the caller gives it back).
        case complete(ByteBuffer, arrival: Int)
        case tooLarge
        case tooSlow
        case overloaded
        case incomplete
    }

    static func read(
        _ body: RequestBody, declared: Int?, limit: Int, limits: LocalForceServer.Limits, localForce: LocalForce
    ) async -> Outcome {
        let arrived = NIOLockedValueBox(0)
        return await withTaskGroup(of: Outcome?.self) { group in
            group.addTask {
                await collect(body, declared: declared, limit: limit, arrival: localForce.bodyArrival) { total in
                    arrived.withLockedValue { $0 = total }
                }
            }
            group.addTask { await watch(arrived, limits: limits) }
            var decided: Outcome?
            for await result in group {
                guard let result else { continue }
                if decided == nil {
                    decided = result
                    group.cancelAll()
                } else if case .complete(_, let arrival) = result {
                    // Complete, but too late: the watchdog decided first.
                    await localForce.bodyArrival.release(arrival)
                }
            }
            return decided ?? .incomplete
        }
    }

    /// The body, read to its end (or until it breaks a limit).
    private static func collect(
        _ body: RequestBody, declared: Int?, limit: Int, arrival: MemoryBudget, progress: @Sendable (Int) -> Void
    ) async -> Outcome {
        var buffer = ByteBuffer()
        var held = 0
        do {
            for try await var chunk in body {
                guard buffer.readableBytes + chunk.readableBytes <= limit else {
                    await arrival.release(held)
                    return .tooLarge
                }
                buffer.writeBuffer(&chunk)
                let total = buffer.readableBytes
                if total > LocalForce.reservedBodyThreshold {
                    guard await arrival.tryReserve(total - held) else {
                        await arrival.release(held)
                        return .overloaded
                    }
                    held = total
                }
                progress(total)
            }
        } catch {
            await arrival.release(held)
            return .incomplete
        }
        // A stream that ended early without an error is still a body shorter than declared.
        if let declared, buffer.readableBytes < declared {
            await arrival.release(held)
            return .incomplete
        }
        return .complete(buffer, arrival: held)
    }

    /// `tooSlow` once the body falls behind the minimum rate; `nil` when cancelled.
    private static func watch(_ arrived: NIOLockedValueBox<Int>, limits: LocalForceServer.Limits) async -> Outcome? {
        let start = ContinuousClock.now
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(250))
            guard !Task.isCancelled else { return nil }
            let late = start.duration(to: .now) - limits.bodyGracePeriod
            guard late > .zero else { continue }
            let (seconds, attoseconds) = late.components
            let owed = (Double(seconds) + Double(attoseconds) / 1e18) * Double(limits.minimumBodyRate)
            if Double(arrived.withLockedValue { $0 }) < owed { return .tooSlow }
        }
        return nil
    }
}
