// swift-format-ignore-file
// (Apple's names and declarations, as its SDKs spell them: see ../README.md.)

// BackgroundTasks (iOS 13, tvOS 13, visionOS 1; the macOS SDK has the framework, its API
// unavailable there; none on watchOS). Nothing is marked Sendable, and the handlers are plain
// closures, as in the SDK's headers (`void (^)(void)`, `void (^)(__kindof BGTask *)`).
public import Foundation

#if MSYNC_APPLE_OS_IOS || MSYNC_APPLE_OS_TVOS || MSYNC_APPLE_OS_VISIONOS
    open class BGTaskRequest: NSObject {
        open var identifier: String { fatalError() }
        open var earliestBeginDate: Date?
    }

    open class BGAppRefreshTaskRequest: BGTaskRequest {
        public init(identifier: String) { fatalError() }
    }

    open class BGProcessingTaskRequest: BGTaskRequest {
        public init(identifier: String) { fatalError() }
        open var requiresNetworkConnectivity: Bool = false
        open var requiresExternalPower: Bool = false
    }

    open class BGTask: NSObject {
        open var identifier: String { fatalError() }
        open var expirationHandler: (() -> Void)?
        open func setTaskCompleted(success: Bool) { fatalError() }
    }

    open class BGAppRefreshTask: BGTask {}
    open class BGProcessingTask: BGTask {}

    open class BGTaskScheduler: NSObject {
        open class var shared: BGTaskScheduler { fatalError() }
        open func register(
            forTaskWithIdentifier identifier: String, using queue: DispatchQueue?, launchHandler: @escaping (BGTask) -> Void
        ) -> Bool { fatalError() }
        open func submit(_ taskRequest: BGTaskRequest) throws { fatalError() }
        open func cancel(taskRequestWithIdentifier identifier: String) { fatalError() }
        open func cancelAllTaskRequests() { fatalError() }
    }
#endif
