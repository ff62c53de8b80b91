#if canImport(BackgroundTasks) && (os(iOS) || os(tvOS) || os(visionOS))
    import BackgroundTasks
    public import Foundation
    import Locking

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
        /// The earliest time between the end of one round and the start of the next.
        public let interval: Duration
        /// The syncs each round runs, by name.
        public let names: [String]
        private let manager: @Sendable () async -> SyncManager?
        private let kept = Locked([BackgroundSyncReport]())

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
            try? scheduleNext()
            let names = names
            let provider = manager
            let running = Task {
                guard let manager = await provider(), let round = try? await BackgroundSyncRound(manager: manager, names: names)
                else {
                    task.setTaskCompleted(success: false)
                    return
                }
                task.expirationHandler = { round.expire() }
                if Task.isCancelled { round.expire() } // the time ran out while the round was made
                let report = await round.run()
                kept.withLock { reports in
                    reports.append(report)
                    reports.removeFirst(max(0, reports.count - Self.keptReports))
                }
                task.setTaskCompleted(success: report.succeeded)
            }
            // Expired before the round began: nothing ran yet; end the task.
            task.expirationHandler = { running.cancel() }
        }
    }
#endif
