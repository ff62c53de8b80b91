import Foundation
import Locking
import TestSupport
import Testing

@testable import SmartStore

#if canImport(Combine)
    import Combine
#else
    import OpenCombine
#endif

/// Live queries see commits another process makes to the store's file (here Python's sqlite3,
/// writing the soup's table), within a second; with no live query, nothing polls.
@Suite struct CrossProcessObserveTests {
    static func insertFromAnotherProcess(_ path: String, rows: Int) async throws {
        let script = """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1], timeout=10)
            for _ in range(int(sys.argv[2])):
                db.execute("INSERT INTO TABLE_1 (soup, created, lastModified) VALUES ('{}', 0, 0)")
            db.commit()
            """
        let (status, output) = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, path, String(rows)], timeout: .seconds(30))
        #expect(status == 0, "\(output)")
    }

    @Test func liveQueriesSeeAnotherProcessesCommits() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path("store.sqlite")
        let store = try SmartStore(path: path)
        try store.registerSoup("accounts", indexSpecs: [IndexSpec("Name", .string)])
        try await store.create(["Name": "here"], in: "accounts")
        #expect(store.changeWatcher?.isWatching == false)
        let counts = Locked([Int64]())
        let observing = Task {
            for try await rows in store.observe(smartSql: "select count(*) from {accounts}", pageSize: 1) {
                counts.withLock { $0.append(rows.first?.arrayValue?.first?.int64Value ?? -1) }
            }
        }
        let published = Locked([Int64]())
        let subscription = store.observePublisher(smartSql: "select count(*) from {accounts}", pageSize: 1).sink(
            receiveCompletion: { _ in },
            receiveValue: { rows in published.withLock { $0.append(rows.first?.arrayValue?.first?.int64Value ?? -1) } })
        try await Self.until { counts.current == [1] && published.current == [1] }
        #expect(store.changeWatcher?.isWatching == true)
        // Three commits of another process, each timed from its exit to the watcher seeing it
        // (it polls on a thread of its own every 250 ms): within a second. The results then
        // reach the query's consumers, tasks of a pool the other tests keep busy.
        var delays: [Duration] = []
        for round in 1...3 {
            let before = store.changeWatcher?.detections.count ?? 0
            try await Self.insertFromAnotherProcess(path, rows: 2)
            let committed = ContinuousClock.now // the other process has committed and exited
            try await Self.until { (store.changeWatcher?.detections.count ?? 0) > before }
            if let seen = store.changeWatcher?.detections.last { delays.append(max(.zero, seen - committed)) }
            let expected = Int64(1 + 2 * round)
            try await Self.until { counts.current.last == expected && published.current.last == expected }
        }
        #expect(delays.count == 3 && delays.allSatisfy { $0 < .seconds(1) }, "seen after \(delays)")
        // A commit of our own is seen once, not twice.
        try await store.create(["Name": "here again"], in: "accounts")
        try await Self.until { counts.current.last == 8 }
        try await Task.sleep(for: .milliseconds(600))
        #expect(counts.current == [1, 3, 5, 7, 8], "\(counts.current)")
        observing.cancel()
        subscription.cancel()
        try await Self.until { store.changeWatcher?.isWatching == false }
    }

    /// Polls `condition` every 20 ms for up to 20 s.
    static func until(_ condition: () -> Bool) async throws {
        for _ in 0..<1000 {
            if condition() { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("condition not met in 20 s")
    }
}
