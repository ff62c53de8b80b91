// swift-format-ignore-file
// (Apple's names and declarations, as its SDKs spell them: see ../README.md.)

// The CoreFoundation types Apple's Foundation re-exports. Toll-free bridged there; here their
// Foundation counterparts, so `[String: Any] as CFDictionary` and `kSecClass as String` type-check.
public import Foundation

public typealias CFTypeRef = AnyObject
public typealias CFDictionary = NSDictionary
public typealias CFString = NSString
public typealias CFData = NSData
public typealias CFIndex = Int
