import Foundation

/// Where the SDK's quiet calls log the errors they do not throw: `NSLog`, which writes to the
/// unified log on Apple platforms and to standard error elsewhere.
enum SDKLog {
    static func error(_ message: String) {
        NSLog("MobileSyncSDKCompat: %@", message)
    }
}
