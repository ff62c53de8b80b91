// swift-format-ignore-file
// (Apple's names and declarations, as its SDKs spell them: see ../README.md.)

// AppKit (macOS): the window a login sheet is shown over.
public import Foundation

@MainActor open class NSResponder: NSObject {}
@MainActor open class NSWindow: NSResponder {}
