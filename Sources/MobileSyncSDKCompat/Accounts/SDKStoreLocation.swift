public import Foundation
public import SmartStore

/// Where the Mobile SDK for iOS keeps an app's stores, to adopt them
/// (``MobileSyncSDKManager/adoptSDKStores(of:from:sdkKey:)``): a user's under
/// `<base>/<org>/<user>/<community or "internal">/stores/<name>/store.sqlite`, the global ones
/// under `<base>/stores/<name>/store.sqlite`, where `<base>` is the app's Documents folder
/// followed by its bundle identifier (the app group's container and name when the SDK shared
/// its data with extensions).
public struct SDKStoreLocation: Sendable, Equatable {
    /// The SDK's base folder (`Documents/<bundle identifier>`).
    public var base: URL

    /// The stores under `base`.
    public init(base: URL) {
        self.base = base
    }

    /// The SDK's folder in this app's Documents (Apple platforms; the home folder's `Documents`
    /// elsewhere), for the app's bundle identifier.
    public static func documents(bundleIdentifier: String) -> SDKStoreLocation {
        let documents =
            FileManager.default.urls(for: .documentDirectory, in: .userDomainMask).first
            ?? URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent("Documents")
        return SDKStoreLocation(base: documents.appendingPathComponent(safe(bundleIdentifier)))
    }

    /// The folder of `user`'s stores.
    public func userStores(of user: UserAccount) -> URL {
        base.appendingPathComponent(Self.safe(user.orgId)).appendingPathComponent(Self.safe(user.userId))
            .appendingPathComponent(Self.safe(user.communityId ?? "internal")).appendingPathComponent("stores")
    }

    /// The folder of the global stores.
    public var globalStores: URL { base.appendingPathComponent("stores") }

    /// A path component as the SDK writes it: `/ \ ? % * | " < > : @` become `_`.
    static func safe(_ component: String) -> String {
        String(component.map { "/\\?%*|\"<>:@".contains($0) ? "_" : $0 })
    }
}

extension StoreKey {
    /// The key the iOS SDK opens its stores with: the Base64 text of its 32-byte key as a
    /// passphrase, with 4,000 iterations (`SmartStore.encryptionKeyGenerator`'s key, read once
    /// while the SDK is still linked).
    public static func sdk(keyData: Data) -> StoreKey {
        .passphrase(keyData.base64EncodedString(), kdfIterations: StoreKey.sdkKDFIterations)
    }
}
