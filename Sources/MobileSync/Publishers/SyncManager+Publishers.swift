import SmartStore

#if canImport(Combine)
    public import Combine
#else
    public import OpenCombine
#endif

extension SyncManager {
    /// Runs the named sync again and publishes its final state, failing as the SDK's
    /// `publisher(for:)` does when the run does not complete: ``MobileSyncError/failed(_:)`` with
    /// the FAILED state, ``MobileSyncError/stopped``, or ``MobileSyncError/notStarted(_:)`` (an
    /// unknown name, a sync already running, a stopped manager). Combine's `Future` on Apple
    /// platforms, OpenCombine's elsewhere; the sync starts when the publisher is made.
    ///
    /// <!-- snippet: Snippets/MobileSyncReference.swift#publisher -->
    /// ```swift
    /// cancellable = manager.publisher(for: "syncDownAccounts")
    ///     .receive(on: RunLoop.main)
    ///     .sink(receiveCompletion: { _ in }, receiveValue: { _ in self.loadFromSmartStore() })
    /// ```
    public nonisolated func publisher(for syncName: String) -> Future<SyncState, MobileSyncError> {
        Future { promise in
            let promise = SendablePromise(promise)
            self.reSyncWithoutUpdates(named: syncName) { promise.fulfill($0) }
        }
    }

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

    /// Removes the named sync's ghosts and publishes how many (the SDK's
    /// `cleanGhostsPublisher(for:)`), failing as ``publisher(for:)`` does.
    public nonisolated func cleanGhostsPublisher(for syncName: String) -> Future<UInt, MobileSyncError> {
        Future { promise in
            let promise = SendablePromise(promise)
            self.cleanGhosts(named: syncName) { promise.fulfill($0) }
        }
    }

    /// Runs the named sync again and yields each of its states as it goes (progress, then the
    /// final state): the async-sequence form of ``publisher(for:)``. Throws as
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
