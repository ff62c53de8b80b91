public import Foundation

extension StoreDirectory {
    /// Where stores live by default: Application Support on Apple platforms but tvOS, where an
    /// app has no persistent storage of its own: there Caches, which the system may purge when
    /// space runs low (the app then syncs down again; sync up promptly, as what was not synced
    /// goes with it); `$XDG_DATA_HOME/msync` (or `~/.local/share/msync`) elsewhere.
    ///
    /// On macOS, Application Support is shared by every app that is not sandboxed, and each app
    /// keeps its store keys in the Keychain under its own name: the folder is
    /// `Application Support/<bundle identifier>/msync` (the process's name for a tool without a
    /// bundle), so no app ever opens another's stores.
    public static var defaultRoot: URL {
        #if os(tvOS)
            let base =
                FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first
                ?? URL(fileURLWithPath: NSTemporaryDirectory())
            return base.appendingPathComponent("msync")
        #elseif canImport(Darwin)
            let base =
                FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
                ?? URL(fileURLWithPath: NSTemporaryDirectory())
            #if os(macOS)
                return macOSRoot(
                    applicationSupport: base, bundleIdentifier: Bundle.main.bundleIdentifier,
                    processName: ProcessInfo.processInfo.processName)
            #else
                return base.appendingPathComponent("msync")
            #endif
        #else
            if let data = ProcessInfo.processInfo.environment["XDG_DATA_HOME"], !data.isEmpty {
                return URL(fileURLWithPath: data).appendingPathComponent("msync")
            }
            return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share/msync")
        #endif
    }

    /// The macOS folder of an app's stores: one of its own under Application Support, named by
    /// its bundle identifier, else (a tool) by its process name.
    static func macOSRoot(applicationSupport: URL, bundleIdentifier: String?, processName: String) -> URL {
        let owner = bundleIdentifier.flatMap { $0.isEmpty ? nil : $0 } ?? processName
        let safe = owner.isEmpty || owner.hasPrefix(".") || owner.contains("/") ? "msync-app" : owner
        return applicationSupport.appendingPathComponent(safe).appendingPathComponent("msync")
    }
}
