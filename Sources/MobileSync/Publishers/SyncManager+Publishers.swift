import SmartStore

#if canImport(Combine)
    public import Combine
#else
    public import OpenCombine
#endif

extension SyncManager {
    /// Runs the named sync again and publishes its final state whatever it is (a FAILED or
    /// STOPPED state is a value); fails only when the sync cannot start.
    public nonisolated func finalStatePublisher(for syncName: String) -> Future<SyncState, any Error> {
        Future { promise in
            let promise = SendablePromise(promise)
            Task {
                do {
                    promise.fulfill(.success(try await self.reSync(named: syncName)))
                } catch {
                    promise.fulfill(.failure(error))
                }
            }
        }
    }

    /// Runs the named sync again and yields each of its states as it goes (progress, then the
    /// final state): the async-sequence form of MobileSyncSDKCompat's `publisher(for:)`. Throws as
    /// `reSync(named:onUpdate:)` does when the sync cannot start.
    public nonisolated func states(for syncName: String) -> AsyncThrowingStream<SyncState, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    let final = try await self.reSync(named: syncName) { state in
                        if state.status == .running { continuation.yield(state) }
                    }
                    continuation.yield(final)
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
