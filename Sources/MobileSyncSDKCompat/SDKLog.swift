import Foundation

#if canImport(os)
    import os
#endif

/// Where the SDK's quiet calls log the errors they do not throw: the unified log on Apple
/// platforms (subsystem `msync`, category `MobileSyncSDKCompat`), standard error elsewhere.
enum SDKLog {
    #if canImport(os)
        private static let logger = Logger(subsystem: "msync", category: "MobileSyncSDKCompat")
    #endif

    static func error(_ message: String) {
        #if canImport(os)
            logger.error("\(message, privacy: .private)")
        #else
            FileHandle.standardError.write(Data(("MobileSyncSDKCompat: " + message + "\n").utf8))
        #endif
    }
}
