// swift-format-ignore-file
// (Apple's names and declarations, as its SDKs spell them: see ../README.md.)

// What Apple's Foundation has and swift-corelibs-foundation lacks, as far as the project calls it.
@_exported public import AppleCoreFoundation
@_exported public import Darwin  // Apple's Foundation re-exports the C library
public import Foundation

extension FileManager {
    /// The container shared by an app group (nil when the entitlement does not name it).
    public func containerURL(forSecurityApplicationGroupIdentifier groupIdentifier: String) -> URL? { fatalError() }
}
