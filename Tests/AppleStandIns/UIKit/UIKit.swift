// swift-format-ignore-file
// (Apple's names and declarations, as its SDKs spell them: see ../README.md.)

// UIKit: the background tasks and scene types the project calls. watchOS's UIKit has none of them.
public import Foundation

#if !MSYNC_APPLE_OS_WATCHOS && !MSYNC_APPLE_OS_MACOS
    @MainActor open class UIResponder: NSObject {}

    @MainActor open class UIView: UIResponder {
        open var window: UIWindow? { fatalError() }
    }

    @MainActor open class UIWindow: UIView {
        override public init() { fatalError() }
    }

    @MainActor open class UIViewController: UIResponder {
        open var view: UIView! { fatalError() }
    }

    /// A background task's identifier (UIApplication.h).
    public struct UIBackgroundTaskIdentifier: RawRepresentable, Hashable, Sendable {
        public var rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let invalid = UIBackgroundTaskIdentifier(rawValue: 0)
    }

    /// Unavailable in app extensions (`NS_EXTENSION_UNAVAILABLE_IOS`): an extension has no
    /// `UIApplication.shared`.
    @MainActor open class UIApplication: UIResponder {
        open class var shared: UIApplication { fatalError() }
        open var backgroundTimeRemaining: TimeInterval { fatalError() }
        open func beginBackgroundTask(expirationHandler handler: (@MainActor @Sendable () -> Void)? = nil) -> UIBackgroundTaskIdentifier {
            fatalError()
        }
        open func beginBackgroundTask(withName taskName: String?, expirationHandler handler: (@MainActor @Sendable () -> Void)? = nil)
            -> UIBackgroundTaskIdentifier
        { fatalError() }
        open func endBackgroundTask(_ identifier: UIBackgroundTaskIdentifier) { fatalError() }
        nonisolated public static let didEnterBackgroundNotification = NSNotification.Name("UIApplicationDidEnterBackgroundNotification")
        nonisolated public static let willEnterForegroundNotification = NSNotification.Name("UIApplicationWillEnterForegroundNotification")
        nonisolated public static let didReceiveMemoryWarningNotification = NSNotification.Name(
            "UIApplicationDidReceiveMemoryWarningNotification")
    }

    @MainActor open class UIScene: UIResponder {}
    @MainActor open class UIWindowScene: UIScene {}

    /// An Objective-C protocol whose methods are all optional: the extension stands for that.
    @MainActor public protocol UISceneDelegate: NSObjectProtocol {
        func sceneDidEnterBackground(_ scene: UIScene)
        func sceneWillEnterForeground(_ scene: UIScene)
    }
    extension UISceneDelegate {
        public func sceneDidEnterBackground(_ scene: UIScene) {}
        public func sceneWillEnterForeground(_ scene: UIScene) {}
    }
    @MainActor public protocol UIWindowSceneDelegate: UISceneDelegate {}
#endif
