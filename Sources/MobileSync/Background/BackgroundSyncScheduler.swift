#if canImport(BackgroundTasks) && (os(iOS) || os(tvOS) || os(visionOS))
    import BackgroundTasks
    import Foundation
    import Locking
    import SmartStore

    /// Runs named syncs in the background through `BGTaskScheduler`: the one place MobileSync
    /// touches the BackgroundTasks framework.
    ///
    /// Call ``register()`` before the app finishes launching, with the identifier listed in the
    /// app's `BGTaskSchedulerPermittedIdentifiers` (Info.plist) and the app's background mode
    /// (`fetch` for a refresh task, `processing` for a processing task); then ``scheduleNext()``,
    /// for example when the app goes to the background. Each time the system launches the task,
    /// the next one is scheduled first, then a ``BackgroundSyncRound`` runs the syncs; when the
    /// system takes the time back, the round expires (the syncs under way end STOPPED, resumable)
    /// and the task is completed. ``reports`` keeps what the last rounds ran.
    public final class BackgroundSyncScheduler: Sendable {
        /// The kind of background task.
        public enum Kind: Sendable, Equatable {
            /// `BGAppRefreshTaskRequest`: short (about 30 s), scheduled by the system from use.
            case appRefresh
            /// `BGProcessingTaskRequest` with network: minutes, often at night while charging.
            case processing(requiresExternalPower: Bool)
        }

        /// The task identifier (in `BGTaskSchedulerPermittedIdentifiers`).
        public let identifier: String
        /// The kind of task asked for.
        public let kind: Kind
        /// The earliest time from scheduling a task to its start: each round schedules the next
        /// one as it begins, so rounds start at least this far apart.
        public let interval: Duration
        /// The syncs each round runs, by name.
        public let names: [String]
        private let manager: @Sendable () async -> SyncManager?
        private let kept = Locked([BackgroundSyncReport]())
        private let scheduling = Locked<String?>(nil)

        /// How many reports ``reports`` keeps.
        public static let keptReports = 20

        /// A scheduler of rounds of `names` on the manager `manager` gives when a task starts (nil
        /// when there is none yet, before a login: the task then completes at once).
        public init(
            identifier: String, kind: Kind = .appRefresh, interval: Duration = .seconds(900), names: [String],
            manager: @escaping @Sendable () async -> SyncManager?
        ) {
            self.identifier = identifier
            self.kind = kind
            self.interval = interval
            self.names = names
            self.manager = manager
        }

        /// The last rounds' reports, oldest first.
        public var reports: [BackgroundSyncReport] { kept.withLock { $0 } }

        /// Why the system refused the next task when a round asked for it, or nil when it took
        /// it: without a next task no round runs until ``scheduleNext()`` is called again.
        public var lastSchedulingError: String? { scheduling.withLock { $0 } }

        /// Registers the task's launch handler; false when the system refuses (the identifier is
        /// not in the app's `BGTaskSchedulerPermittedIdentifiers`).
        @discardableResult
        public func register() -> Bool {
            BGTaskScheduler.shared.register(forTaskWithIdentifier: identifier, using: nil) { [self] task in handle(task) }
        }

        /// Asks for the next task, no earlier than ``interval`` from now.
        ///
        /// - Throws: `BGTaskScheduler.Error` (not permitted, too many requests, unavailable: in
        ///   the Simulator, or with Background App Refresh off).
        public func scheduleNext() throws {
            let request: BGTaskRequest
            switch kind {
            case .appRefresh:
                request = BGAppRefreshTaskRequest(identifier: identifier)
            case .processing(let requiresExternalPower):
                let processing = BGProcessingTaskRequest(identifier: identifier)
                processing.requiresNetworkConnectivity = true
                processing.requiresExternalPower = requiresExternalPower
                request = processing
            }
            let seconds = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
            request.earliestBeginDate = Date(timeIntervalSinceNow: seconds)
            try BGTaskScheduler.shared.submit(request)
        }

        private func handle(_ task: BGTask) {
            do {
                try scheduleNext()
                scheduling.withLock { $0 = nil }
            } catch {
                scheduling.withLock { $0 = "\(error)" }
            }
            let run = BackgroundTaskRun(task: task)
            task.expirationHandler = { run.expire() }
            let (names, provider, kept) = (names, manager, kept)
            run.start {
                SmartStore.resumeStores() // the app suspended them when it went to the background
                let report: BackgroundSyncReport
                if let manager = await provider() {
                    report = await run.round(of: names, on: manager)
                } else {
                    report = BackgroundSyncReport(
                        started: Date(), ended: Date(), expired: run.isExpired,
                        syncs: names.map { .init(name: $0, status: "NOT_RUN", error: "no sync manager (no user logged in)") })
                }
                kept.withLock { reports in
                    reports.append(report)
                    reports.removeFirst(max(0, reports.count - Self.keptReports))
                }
                run.complete(success: report.succeeded)
            }
        }
    }

    /// One launch of the background task: its round, its expiry, and its completion, said to
    /// the system exactly once. `@unchecked Sendable`: `BGTask` is not marked `Sendable`; the
    /// system calls its expiration handler on any thread, and its state here is behind a lock.
    private final class BackgroundTaskRun: @unchecked Sendable {
        private let task: BGTask
        private struct State {
            var expired = false
            var completed = false
            var round: BackgroundSyncRound?
            var work: Task<Void, Never>?
        }
        private let state = Locked(State())
        /// How long the syncs get to stop after the time ran out, before the task is completed.
        static let grace: Duration = .seconds(2)

        init(task: BGTask) {
            self.task = task
        }

        var isExpired: Bool { state.withLock { $0.expired } }

        /// Runs `body` in a task of its own.
        func start(_ body: @escaping @Sendable () async -> Void) {
            let work = Task { await body() }
            state.withLock { $0.work = work }
        }

        /// A round of `names` on `manager`, expired at once if the time already ran out.
        func round(of names: [String], on manager: SyncManager) async -> BackgroundSyncReport {
            let started = Date()
            do {
                let round = try await BackgroundSyncRound(manager: manager, names: names)
                let expired = state.withLock { state -> Bool in
                    state.round = round
                    return state.expired
                }
                if expired { round.expire() }
                return await round.run()
            } catch {
                return BackgroundSyncReport(
                    started: started, ended: Date(), expired: isExpired,
                    syncs: names.map { .init(name: $0, status: SyncState.Status.failed.rawValue, error: "\(error)") })
            }
        }

        /// The time is up: the round stops its syncs, the requests in flight are cancelled, and
        /// the task completes once they have, or after ``grace``.
        func expire() {
            let (round, work) = state.withLock { state -> (BackgroundSyncRound?, Task<Void, Never>?) in
                state.expired = true
                return (state.round, state.work)
            }
            round?.expire()
            work?.cancel()
            Task {
                try? await Task.sleep(for: Self.grace)
                self.complete(success: false)
            }
        }

        /// Tells the system the task is done, the first time only.
        func complete(success: Bool) {
            let first = state.withLock { state -> Bool in
                defer { state.completed = true }
                return !state.completed
            }
            if first { task.setTaskCompleted(success: success) }
        }
    }
#endif
