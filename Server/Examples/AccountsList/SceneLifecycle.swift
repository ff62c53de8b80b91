// The example of MobileSync's "Syncing in an iOS app" article: an app's scenes stop the syncs and
// release the store's locks in the background. The Apple workflow builds it for the iOS Simulator.
#if canImport(UIKit)
    import MobileSync
    import SmartStore
    import UIKit

    /// A scene delegate that stops syncing when the app goes to the background.
    final class SyncingSceneDelegate: UIResponder, UIWindowSceneDelegate {
        let manager: SyncManager

        init(manager: SyncManager) {
            self.manager = manager
        }

        // snippet.scene
        func sceneDidEnterBackground(_ scene: UIScene) {
            let task = UIApplication.shared.beginBackgroundTask()
            Task {
                await manager.stop() // running syncs end at their next page or batch
                while await !manager.isStopped { try? await Task.sleep(for: .milliseconds(50)) }
                SmartStore.suspendStores() // stores in an app-group container release their locks
                UIApplication.shared.endBackgroundTask(task)
            }
        }

        func sceneWillEnterForeground(_ scene: UIScene) {
            SmartStore.resumeStores()
            Task { try await manager.restart(restartStoppedSyncs: true) }
        }
        // snippet.end
    }
#endif
