import Foundation
import NIOConcurrencyHelpers

/// Runs Bulk jobs in the background, one at a time per LocalForce, while there are any.
///
/// A job is claimed with one conditional UPDATE (UploadComplete → InProgress, or an InProgress
/// job whose claim went stale), so that of several LocalForce processes on one database
/// exactly one runs it. The claim is renewed with every transaction of progress; a process
/// that dies leaves a claim that goes stale after ``BulkOptions/claimTimeout``, and the next
/// process kicked (by a client polling any job) resumes the job where its last transaction left it.
final class BulkWorker: Sendable {
    /// Who claims: this process's LocalForce.
    let owner = UUID().uuidString
    private let state = NIOLockedValueBox((running: false, again: false))
    /// How jobs are claimed and run (attached once by LocalForce's initializer, holding it weakly).
    private let jobs = NIOLockedValueBox<
        (claim: @Sendable (String) async -> String?, run: @Sendable (String, String) async -> Void)?
    >(nil)

    func attach(claim: @escaping @Sendable (String) async -> String?, run: @escaping @Sendable (String, String) async -> Void) {
        jobs.withLockedValue { $0 = (claim, run) }
    }

    /// Makes sure the worker looks for jobs: starts it, or has it look again when it is running.
    func kick() {
        let start = state.withLockedValue { state -> Bool in
            if state.running {
                state.again = true
                return false
            }
            state.running = true
            return true
        }
        guard start else { return }
        Task { [self] in await run() }
    }

    private func run() async {
        while true {
            if let (claim, run) = jobs.withLockedValue({ $0 }) {
                while let id = await claim(owner) { await run(id, owner) }
            }
            let stop = state.withLockedValue { state -> Bool in
                if state.again {
                    state.again = false
                    return false
                }
                state.running = false
                return true
            }
            if stop { return }
        }
    }
}
