// snippet.hide
// The example of MobileSync's "Syncing in an iOS app" article (compiled where UIKit exists).
import MobileSync
import SmartStore

#if canImport(UIKit)
    import UIKit

    final class SceneDelegate: UIResponder, UIWindowSceneDelegate {
        let manager: SyncManager

        init(manager: SyncManager) {
            self.manager = manager
        }

        // snippet.show
        func sceneDidEnterBackground(_ scene: UIScene) {
            let task = UIApplication.shared.beginBackgroundTask()
            Task {
                await manager.stop()                 // running syncs end at their next page or batch
                while await !manager.isStopped { try? await Task.sleep(for: .milliseconds(50)) }
                SmartStore.suspendStores()           // stores in an app-group container release their locks
                UIApplication.shared.endBackgroundTask(task)
            }
        }

        func sceneWillEnterForeground(_ scene: UIScene) {
            SmartStore.resumeStores()
            Task { try await manager.restart(restartStoppedSyncs: true) }
        }
        // snippet.hide
    }
#endif
