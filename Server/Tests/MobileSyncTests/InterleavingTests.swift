import FastJSON
import Foundation
import SalesforceREST
import SmartStore
import TestLocking
import Testing

@testable import LocalForce
@testable import MobileSync

/// Random interleavings of everything that writes one store file and its org at once: app
/// edits (updateLocally from this process and another, fresh and stale whole-entry upserts,
/// creates, deletes), sync ups in every merge mode through three targets, LEAVE_IF_CHANGED
/// resyncs, ghost cleanups, a live sync, conflicts settled as a screen shows them, a second
/// process's syncs, `msync sync` children killed mid-run, other users writing the org, and
/// injected faults (errors, dropped answers, gateways' 504s before and after the work, late
/// commits). Then everything is settled and the invariants checked: each server record held
/// once, every edit the app made either on the server or still dirty with its reason (or
/// discarded by a resolution that kept the server's version), clean entries equal to the
/// server, no record created twice for one local create, nothing RUNNING.
///
/// Seeded: the steps each round takes come from `MSYNC_CHAOS_SEED` (else a random seed, which
/// a failure prints with the steps); their timing is the machine's. It runs for
/// `MSYNC_CHAOS_SECONDS` (60 by default, as in the test command; longer on demand), and writes
/// every step to the file `MSYNC_CHAOS_LOG` names, if any.
@Suite struct InterleavingTests {
    @Test func randomInterleavingsLoseAndDuplicateNothing() async throws {
        let environment = ProcessInfo.processInfo.environment
        let seconds = environment["MSYNC_CHAOS_SECONDS"].flatMap(Double.init).map { max(1, min($0, 86_400)) } ?? 60
        let seed = environment["MSYNC_CHAOS_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
        try await withHarness { harness in
            let world = try await ChaosWorld(harness: harness, seed: seed)
            defer { try? FileManager.default.removeItem(at: world.folder) }
            let end = ContinuousClock.now + .seconds(seconds)
            var round = 0
            while ContinuousClock.now < end {
                round += 1
                try await world.round(round)
            }
            let problems = try await world.settleAndCheck()
            let steps = world.ledger.steps.current
            if let log = environment["MSYNC_CHAOS_LOG"] {
                try Data((["seed \(seed)"] + steps + problems).joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: log))
            }
            #expect(
                problems.isEmpty,
                "seed \(seed), \(round) rounds:\n\(problems.joined(separator: "\n"))\nsteps:\n\(steps.suffix(400).joined(separator: "\n"))")
            let kinds = Dictionary(steps.map { (Self.kind(of: $0), 1) }, uniquingKeysWith: +)
            print(
                "interleavings: seed \(seed), \(round) rounds, \(steps.count) steps in \(Int(seconds)) s: \(kinds.sorted { $0.key < $1.key })"
            )
        }
    }

    /// A step's kind: its words up to the first that holds a number or ends a clause.
    static func kind(of step: String) -> String {
        let words = step.split(separator: " ").prefix { word in !word.contains(where: \.isNumber) && !word.hasSuffix(":") }
        return words.isEmpty ? String(step.prefix(while: { $0 != " " && $0 != ":" })) : words.joined(separator: " ")
    }
}

/// What the app did that must survive: the last token it wrote to each entry's Industry (more
/// than one where two processes' edits raced and either may be last), the creates it made (by
/// their unique Name), the entries it deleted; and every step taken.
final class ChaosLedger: Sendable {
    let steps = Locked<[String]>([])
    let lastEdit = Locked<[Int64: Set<String>]>([:])
    let created = Locked<Set<String>>([])
    let deleted = Locked<Set<Int64>>([])

    func note(_ step: String) { steps.withLock { $0.append(step) } }
}
