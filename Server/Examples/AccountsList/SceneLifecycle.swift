// The example of MobileSync's "Syncing in an iOS app" article: an app's scenes stop the syncs and
// release the store's locks in the background. The Apple workflow builds it for the iOS Simulator,
// and scripts/checks/apple_typecheck.py type-checks it here against stand-ins for UIKit.
#if canImport(UIKit) && (os(iOS) || os(visionOS))
    import MobileSync
    import MobileSyncSDKCompat
    import SmartStore
    import UIKit

    /// A scene delegate that stops syncing when the app goes to the background (an app with one
    /// scene; with several, stop when the last one leaves the foreground).
    final class SyncingSceneDelegate: UIResponder, UIWindowSceneDelegate {
        let manager: SyncManager
        private let background = BackgroundTime()
        private var stopping: Task<Void, Never>?

        init(manager: SyncManager) {
            self.manager = manager
        }

        // snippet.scene
        func sceneDidEnterBackground(_ scene: UIScene) {
            let manager = manager
            let stopping = Task {
                manager.stop() // running syncs end at their next page or batch
                let deadline = ContinuousClock.now + .seconds(20) // iOS grants about 30 s
                while !manager.isStopped, ContinuousClock.now < deadline, !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(50))
                }
            }
            self.stopping = stopping
            let task = background.begin { // out of time: the system suspends the app right after this
                stopping.cancel()
                SmartStore.suspendStores()
            }
            Task {
                await stopping.value
                guard !stopping.isCancelled else { return } // back in the foreground, or out of time
                SmartStore.suspendStores() // stores in an app-group container release their locks
                background.end(task)
            }
        }

        func sceneWillEnterForeground(_ scene: UIScene) {
            stopping?.cancel()
            background.end()
            SmartStore.resumeStores()
            Task { try await manager.restart(restartStoppedSyncs: true) }
        }
        // snippet.end
    }

    /// The example's background syncing: BGTaskScheduler tasks that run the syncs.
    @MainActor enum BackgroundSyncing {
        static func setUp() -> BackgroundSyncScheduler {
            // snippet.background
            let background = BackgroundSyncScheduler(identifier: "com.acme.app.sync", names: ["syncUpAccounts", "syncDownAccounts"]) {
                try? MobileSyncSDKManager.shared.syncManager()
            }
            background.register() // in application(_:didFinishLaunchingWithOptions:)
            try? background.scheduleNext() // in sceneDidEnterBackground(_:)
            // snippet.end
            return background
        }
    }

    /// One background task at a time: begun with an expiration handler that ends it, ended once.
    @MainActor final class BackgroundTime {
        private var task = UIBackgroundTaskIdentifier.invalid

        /// Asks for background time (ending the task begun before, if any); `expiring` runs, then
        /// the task ends, if it runs out. Returns the task, for ``end(_:)``.
        func begin(expiring: @escaping @MainActor () -> Void) -> UIBackgroundTaskIdentifier {
            end()
            task = UIApplication.shared.beginBackgroundTask(withName: "Stop syncing") { [weak self] in
                expiring()
                self?.end()
            }
            return task
        }

        /// Ends `task` if it is still the one running (not one begun after it).
        func end(_ task: UIBackgroundTaskIdentifier) {
            if task == self.task { end() }
        }

        /// Ends the background task, if one is running.
        func end() {
            guard task != .invalid else { return }
            UIApplication.shared.endBackgroundTask(task)
            task = .invalid
        }
    }
#endif
