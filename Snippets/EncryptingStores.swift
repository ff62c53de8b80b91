// snippet.hide
// The examples of SmartStore's "Encrypting stores" article.
import Foundation
import SmartStore

func example(path: String, copiedFromDevice: String, passcode: String, appSupport: URL, userId: String) throws {
    // snippet.show
    // snippet.open
    let store = try SmartStore(path: path, key: .passphrase("correct horse battery staple"))
    // snippet.end
    // snippet.sdk
    let sdkStore = try SmartStore(path: copiedFromDevice, key: .passphrase(passcode, kdfIterations: StoreKey.sdkKDFIterations))
    // snippet.end
    // snippet.hide
    print(store, sdkStore)
    func directory() throws {
        // snippet.show
        // snippet.provider
        let stores = StoreDirectory(root: appSupport, keyProvider: PlatformStoreKeyProvider())
        let store = try stores.userStore(user: userId)
        // snippet.end
        // snippet.hide
        print(store)
    }
}
