import Foundation
import MobileSyncSDKCompat
import Testing

@testable import SmartStore

/// What the SDK manager chooses for Apple platforms, checked here through the functions that
/// decide it: each app's own folder on macOS, and the store options given (an extension's).
@Suite struct AppleDefaultsTests {
    /// Two macOS apps outside the sandbox share Application Support: each gets a folder of its own.
    @Test func eachMacOSAppHasAFolderOfItsOwn() {
        let support = URL(fileURLWithPath: "/Users/ann/Library/Application Support")
        let mail = StoreDirectory.macOSRoot(applicationSupport: support, bundleIdentifier: "com.acme.mail", processName: "Mail")
        let notes = StoreDirectory.macOSRoot(applicationSupport: support, bundleIdentifier: "com.acme.notes", processName: "Notes")
        #expect(mail.path == "/Users/ann/Library/Application Support/com.acme.mail/msync")
        #expect(notes.path == "/Users/ann/Library/Application Support/com.acme.notes/msync")
        // A tool without a bundle: its process name; a name that is no folder name: a fixed one.
        let tool = StoreDirectory.macOSRoot(applicationSupport: support, bundleIdentifier: nil, processName: "report-tool")
        #expect(tool.path == "/Users/ann/Library/Application Support/report-tool/msync")
        for odd in ["", "..", "a/b"] {
            let root = StoreDirectory.macOSRoot(applicationSupport: support, bundleIdentifier: odd, processName: odd)
            #expect(root.path == "/Users/ann/Library/Application Support/msync-app/msync")
        }
    }

    /// The manager's stores open with the options it was given, and after `configure` with the new ones.
    @Test func theManagersStoresOpenWithItsStoreOptions() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apple-defaults-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let sdk = MobileSyncSDKManager(root: folder.appendingPathComponent("a"), keyProvider: nil, storeOptions: .appExtension)
        let store = try sdk.globalStore()
        #expect(store.writer.configuration.maximumReaderCount == 2 && store.writer.configuration.observesSuspensionNotifications)
        sdk.configure(root: folder.appendingPathComponent("b"), keyProvider: nil, storeOptions: StoreOptions(maximumReaderCount: 3))
        #expect(try sdk.globalStore().writer.configuration.maximumReaderCount == 3)
        // By default, this process's: the test runner is no app extension.
        let byDefault = try MobileSyncSDKManager(root: folder.appendingPathComponent("c"), keyProvider: nil).globalStore()
        #expect(byDefault.writer.configuration.maximumReaderCount == 5 && !byDefault.writer.configuration.observesSuspensionNotifications)
    }
}
