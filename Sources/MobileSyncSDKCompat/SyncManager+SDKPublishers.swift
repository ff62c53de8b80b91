public import MobileSync
import SmartStore

#if canImport(Combine)
    public import Combine
#else
    public import OpenCombine
#endif

/// The SDK's Combine publishers of a sync (`SyncManager.publisher(for:)` and
/// `cleanGhostsPublisher(for:)`), which fail as the SDK's do; MobileSync's own
/// `finalStatePublisher(for:)` and `states(for:)` give any final state as a value.
extension SyncManager {
    /// Runs the named sync again and publishes its final state, failing as the SDK's
    /// `publisher(for:)` does when the run does not complete: `MobileSyncError.failed(_:)` with
    /// the FAILED state, `MobileSyncError.stopped`, or `MobileSyncError.notStarted(_:)` (an
    /// unknown name, a sync already running, a stopped manager). Combine's `Future` on Apple
    /// platforms, OpenCombine's elsewhere; the sync starts when the publisher is made.
    ///
    /// <!-- snippet: Snippets/MobileSyncSDKCompatReference.swift#publisher -->
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

    /// Removes the named sync's ghosts and publishes how many (the SDK's
    /// `cleanGhostsPublisher(for:)`), failing as `publisher(for:)` does.
    public nonisolated func cleanGhostsPublisher(for syncName: String) -> Future<UInt, MobileSyncError> {
        Future { promise in
            let promise = SendablePromise(promise)
            self.cleanGhosts(named: syncName) { promise.fulfill($0) }
        }
    }
}
