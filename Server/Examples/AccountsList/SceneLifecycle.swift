// The example of MobileSync's "Syncing in an iOS app" article: an app's scenes stop the syncs and
// release the store's locks in the background. The Apple workflow builds it for the iOS Simulator,
// and scripts/checks/apple_typecheck.py type-checks it here against stand-ins for UIKit.
#if canImport(UIKit) && (os(iOS) || os(visionOS))
    import MobileSync
    import SmartStore
    import UIKit

    /// A scene delegate that stops syncing when the app goes to the background.
    final class SyncingSceneDelegate: UIResponder, UIWindowSceneDelegate {
        let manager: SyncManager
        private let background = BackgroundTime()

        init(manager: SyncManager) {
            self.manager = manager
        }

        // snippet.scene
        func sceneDidEnterBackground(_ scene: UIScene) {
            let manager = manager
            let stopping = Task {
                await manager.stop() // running syncs end at their next page or batch
                let deadline = ContinuousClock.now + .seconds(20) // iOS grants about 30 s
                while await !manager.isStopped, ContinuousClock.now < deadline, !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(50))
                }
            }
            background.begin { // out of time: the system suspends the app right after this
                stopping.cancel()
                SmartStore.suspendStores()
            }
            Task {
                await stopping.value
                SmartStore.suspendStores() // stores in an app-group container release their locks
                background.end()
            }
        }

        func sceneWillEnterForeground(_ scene: UIScene) {
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

        /// Asks for background time; `expiring` runs, then the task ends, if it runs out.
        func begin(expiring: @escaping @MainActor () -> Void) {
            end()
            task = UIApplication.shared.beginBackgroundTask(withName: "Stop syncing") { [weak self] in
                expiring()
                self?.end()
            }
        }

        /// Ends the background task, if one is running.
        func end() {
            guard task != .invalid else { return }
            UIApplication.shared.endBackgroundTask(task)
            task = .invalid
        }
    }
#endif
