import SmartStore

#if canImport(Combine)
    public import Combine
#else
    public import OpenCombine
#endif

extension SyncManager {
    /// Runs the named sync again and publishes its final state (the SDK's `publisher(for:)`):
    /// Combine's `Future` on Apple platforms, OpenCombine's elsewhere. The sync starts when the
    /// publisher is made. A sync that cannot start (unknown name, already running, manager
    /// stopped) fails the publisher; one that runs and fails publishes its FAILED state.
    ///
    /// ```swift
    /// cancellable = manager.publisher(for: "syncDownAccounts")
    ///     .receive(on: RunLoop.main)
    ///     .sink(receiveCompletion: { _ in }, receiveValue: { _ in self.loadFromSmartStore() })
    /// ```
    public nonisolated func publisher(for syncName: String) -> Future<SyncState, any Error> {
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
    /// final state): the async-sequence form of ``publisher(for:)``. Throws as
    /// ``reSync(named:onUpdate:)`` does when the sync cannot start.
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
