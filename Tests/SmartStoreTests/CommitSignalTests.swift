import Foundation
import GRDB
import Locking
import TestSupport
import Testing

@testable import SmartStore

/// The signal path Apple platforms take for live queries across processes (Darwin
/// notifications there), run here with an in-process signal: a commit that changed rows posts,
/// an empty one does not, and a watcher with a signal reads `data_version` only when woken —
/// no polling thread — and stops listening when the last live query ends.
@Suite struct CommitSignalTests {
    /// Delivers each post to every observer, as the Darwin notify center does (the poster's
    /// own process included).
    final class Signal: CommitSignal {
        private let state = Locked((posts: 0, observers: [Int: @Sendable () -> Void](), next: 0))

        var posts: Int { state.withLock { $0.posts } }
        var observers: Int { state.withLock { $0.observers.count } }

        func post() {
            let handlers = state.withLock { state in
                state.posts += 1
                return Array(state.observers.values)
            }
            for handler in handlers { handler() }
        }

        func observe(_ handler: @escaping @Sendable () -> Void) -> (@Sendable () -> Void)? {
            let key = state.withLock { state in
                state.next += 1
                state.observers[state.next] = handler
                return state.next
            }
            return { [weak self] in self?.state.withLock { _ = $0.observers.removeValue(forKey: key) } }
        }
    }

    @Test func commitsPostAndTheWatcherReadsOnlyWhenWoken() async throws {
        let folder = TemporaryDirectory()
        let path = folder.path("store.sqlite")
        let store = try SmartStore(path: path)
        try store.registerSoup("accounts", indexSpecs: [IndexSpec("Id", .string)])
        let signal = Signal()
        store.writer.add(transactionObserver: CommitPoster(signal: signal), extent: .databaseLifetime)
        _ = try await store.upsert(["Id": "001A"], in: "accounts", externalIdPath: "Id")
        let afterWrite = signal.posts
        #expect(afterWrite >= 1)
        try await store.write { _ in } // changes nothing: posts nothing
        #expect(signal.posts == afterWrite)

        // Another connection to the file (as another process would be) commits.
        let other = try SmartStore(path: path)
        let watcher = ChangeWatcher(writer: store.writer, signal: signal)
        watcher.subscribe()
        #expect(watcher.isWatching && signal.observers == 1)
        // The baseline is read on the watcher's queue: a commit before it is part of it, not a detection.
        try await CrossProcessObserveTests.until { watcher.hasBaseline }
        _ = try await other.upsert(["Id": "001B"], in: "accounts", externalIdPath: "Id")
        // Not woken: nothing reads, however long (a poll would have seen it within 250 ms).
        try await Task.sleep(for: .milliseconds(800))
        #expect(watcher.detections.count == 0)
        signal.post() // what the other process's poster says
        try await CrossProcessObserveTests.until { watcher.detections.count == 1 }
        watcher.unsubscribe()
        #expect(!watcher.isWatching && signal.observers == 0)
    }
}
