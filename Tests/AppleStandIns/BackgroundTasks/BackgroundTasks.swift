// swift-format-ignore-file
// (Apple's names and declarations, as its SDKs spell them: see ../README.md.)

// BackgroundTasks (iOS 13, tvOS 13, visionOS 1; not macOS or watchOS).
public import Foundation

#if MSYNC_APPLE_OS_IOS || MSYNC_APPLE_OS_TVOS || MSYNC_APPLE_OS_VISIONOS
    open class BGTaskRequest: NSObject, @unchecked Sendable {
        open var identifier: String { fatalError() }
        open var earliestBeginDate: Date?
    }

    open class BGAppRefreshTaskRequest: BGTaskRequest, @unchecked Sendable {
        public init(identifier: String) { fatalError() }
    }

    open class BGProcessingTaskRequest: BGTaskRequest, @unchecked Sendable {
        public init(identifier: String) { fatalError() }
        open var requiresNetworkConnectivity: Bool = false
        open var requiresExternalPower: Bool = false
    }

    open class BGTask: NSObject, @unchecked Sendable {
        open var identifier: String { fatalError() }
        open var expirationHandler: (@Sendable () -> Void)?
        open func setTaskCompleted(success: Bool) { fatalError() }
    }

    open class BGAppRefreshTask: BGTask, @unchecked Sendable {}
    open class BGProcessingTask: BGTask, @unchecked Sendable {}

    open class BGTaskScheduler: NSObject, @unchecked Sendable {
        open class var shared: BGTaskScheduler { fatalError() }
        open func register(
            forTaskWithIdentifier identifier: String, using queue: DispatchQueue?, launchHandler: @escaping @Sendable (BGTask) -> Void
        ) -> Bool { fatalError() }
        open func submit(_ taskRequest: BGTaskRequest) throws { fatalError() }
        open func cancel(taskRequestWithIdentifier identifier: String) { fatalError() }
        open func cancelAllTaskRequests() { fatalError() }
    }
#endif
