/// Bounds the memory that large requests take at once: each request reserves an estimate of
/// what reading, parsing and answering its body costs, and waits (in arrival order) while the
/// reservations in flight would exceed the capacity.
///
/// A request larger than the whole capacity still runs, alone. Small requests reserve nothing
/// (``LocalForceServer`` reserves only above ``LocalForce/reservedBodyThreshold``).
package actor MemoryBudget {
    /// Bytes that may be reserved at once.
    nonisolated let capacity: Int
    private var reserved = 0
    private var waiters: [(weight: Int, continuation: CheckedContinuation<Void, Never>)] = []

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Bytes reserved now (for tests and diagnostics).
    var inUse: Int { reserved }
    /// The most requests that ever waited at once (for tests and diagnostics).
    private(set) var mostWaiting = 0

    /// Reserves `bytes` (at most the capacity), waiting until it fits.
    package func reserve(_ bytes: Int) async {
        let weight = clamped(bytes)
        if waiters.isEmpty, weight <= capacity - reserved {
            reserved += weight
            return
        }
        await withCheckedContinuation { continuation in
            waiters.append((weight, continuation))
            mostWaiting = max(mostWaiting, waiters.count)
        }
    }

    /// Reserves `bytes` if they fit now (and no one is waiting), without waiting; whether it did.
    package func tryReserve(_ bytes: Int) -> Bool {
        guard bytes > 0 else { return true }
        guard waiters.isEmpty, bytes <= capacity - reserved else { return false }
        reserved += bytes
        return true
    }

    /// Returns a reservation of `bytes` and wakes the waiters that now fit, in order.
    package func release(_ bytes: Int) {
        reserved = max(0, reserved - clamped(bytes))
        while let first = waiters.first, first.weight <= capacity - reserved {
            waiters.removeFirst()
            reserved += first.weight
            first.continuation.resume()
        }
    }

    private func clamped(_ bytes: Int) -> Int { min(max(0, bytes), capacity) }
}
