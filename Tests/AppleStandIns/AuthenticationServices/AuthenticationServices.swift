// swift-format-ignore-file
// (Apple's names and declarations, as its SDKs spell them: see ../README.md.)

// AuthenticationServices: the web authentication session (iOS 12, macOS 10.15, visionOS 1;
// none on tvOS), and the window its sheet is shown over.
public import Foundation

#if MSYNC_APPLE_OS_MACOS
    public import AppKit
    public typealias ASPresentationAnchor = NSWindow
#elseif !MSYNC_APPLE_OS_WATCHOS
    public import UIKit
    public typealias ASPresentationAnchor = UIWindow
#endif

#if MSYNC_APPLE_OS_IOS || MSYNC_APPLE_OS_MACOS || MSYNC_APPLE_OS_VISIONOS
    /// Not main-actor isolated in the SDK: a view controller conforms with `@preconcurrency`.
    public protocol ASWebAuthenticationPresentationContextProviding: NSObjectProtocol {
        func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor
    }

    open class ASWebAuthenticationSession: NSObject {
        public typealias CompletionHandler = (URL?, (any Error)?) -> Void

        /// How the session recognises its callback (iOS 17.4, macOS 14.4, visionOS 1.1).
        open class Callback: NSObject {
            open class func customScheme(_ customScheme: String) -> Self { fatalError() }
            open class func https(host: String, path: String) -> Self { fatalError() }
        }

        public init(url URL: URL, callbackURLScheme: String?, completionHandler: @escaping CompletionHandler) { fatalError() }
        public init(url URL: URL, callback: Callback, completionHandler: @escaping CompletionHandler) { fatalError() }
        weak open var presentationContextProvider: (any ASWebAuthenticationPresentationContextProviding)?
        open var prefersEphemeralWebBrowserSession: Bool = false
        open func start() -> Bool { fatalError() }
        open func cancel() { fatalError() }
    }

    public struct ASWebAuthenticationSessionError: Error, Sendable {
        public enum Code: Int, Sendable {
            case canceledLogin = 1
            case presentationContextNotProvided = 2
            case presentationContextInvalid = 3
        }
        public let code: Code
        public static var canceledLogin: Code { .canceledLogin }
    }
#endif
