import Foundation
import TestLocking
import Testing

@testable import LocalForce

/// Writers that share no row (PostgreSQL): a process's stamps stay near its clock, and two
/// transactions that deadlock on the records they both write both land, one run again.
@Suite struct ConcurrentWriterTests {
    @Test func aBurstOfStampsRunsAheadOfTheClockBoundedThenRepeats() {
        let clock = StampClock()
        let stamps = (0..<1500).map { _ in clock.next(now: 10_000) }
        #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(stamps.first == 10_000 && stamps.last == 10_000 + StampClock.maximumLead)
        #expect(Set(stamps).count == Int(StampClock.maximumLead) + 1)
        // As the clock moves on, stamps increase again, never below the last one, then follow it.
        #expect(clock.next(now: 10_500) == 10_000 + StampClock.maximumLead + 1)
        #expect(clock.next(now: 20_000) == 20_000)
        #expect(clock.next(now: 20_000) == 20_001)
    }

    /// Counts a closure's runs across the threads transactions run on.
    final class Runs: Sendable {
        private let counts = Locked<[String: Int]>([:])

        /// Counts a run of `name`; returns how many there have been.
        func start(_ name: String) -> Int {
            counts.withLock { counts in
                counts[name, default: 0] += 1
                return counts[name, default: 0]
            }
        }

        var total: Int { counts.current.values.reduce(0, +) }
    }

    @Test(
        .enabled(
            if: !(ProcessInfo.processInfo.environment["LOCALFORCE_TEST_POSTGRES_URL"] ?? "").isEmpty,
            "PostgreSQL only: SQLite runs one writer at a time, so its writers cannot deadlock"))
    func aDeadlockedWriteRunsAgain() async throws {
        let database = try await TestServer.database()
        do {
            try await Self.deadlock(on: database)
        } catch {
            await database.close() // an open pool must be closed, whatever failed
            throw error
        }
        await database.close()
    }

    private static func deadlock(on database: any SQLDatabase) async throws {
        _ = try await database.write { db in
            _ = try db.execute("CREATE TABLE lf_deadlock (id BIGINT PRIMARY KEY, total BIGINT NOT NULL)", [])
            return try db.execute("INSERT INTO lf_deadlock (id, total) VALUES (1, 0), (2, 0)", [])
        }
        let (firstHolds, secondHolds) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        let runs = Runs()
        // Each takes one row, waits (on its first run) until the other has taken the other row,
        // then asks for it: a deadlock, which PostgreSQL ends by aborting one of them.
        @Sendable func transfer(
            _ name: String, first: Int64, then second: Int64, amount: Int64, signal: DispatchSemaphore, wait: DispatchSemaphore
        )
            -> @Sendable (any SQLConnection) throws -> Int
        {
            { db in
                let run = runs.start(name)
                _ = try db.execute("UPDATE lf_deadlock SET total = total + $1 WHERE id = $2", [.integer(amount), .integer(first)])
                if run == 1 {
                    signal.signal()
                    wait.wait()
                }
                return try db.execute("UPDATE lf_deadlock SET total = total + $1 WHERE id = $2", [.integer(amount), .integer(second)])
            }
        }
        async let a = database.write(transfer("a", first: 1, then: 2, amount: 1, signal: firstHolds, wait: secondHolds))
        async let b = database.write(transfer("b", first: 2, then: 1, amount: 10, signal: secondHolds, wait: firstHolds))
        let (one, two) = try await (a, b)
        #expect(one == 1 && two == 1)
        let totals = try await database.read { db in
            try db.rows("SELECT total FROM lf_deadlock ORDER BY id", []).compactMap { $0.first?.integer }
        }
        #expect(totals == [11, 11], "both transfers landed once")
        #expect(runs.total == 3, "the aborted one ran again")
    }
}
