import Foundation

/// Data protection on Apple platforms: the one place SmartStore sets it (nothing elsewhere).
///
/// A folder the store creates for itself (``StoreDirectory``'s folders are) gets the class
/// first, before SQLite opens anything: every file created in it later (the `-wal` and `-shm`
/// files, the `-locks` file, a rollback journal) inherits the folder's class. Then the files of
/// the store that exist get it too. A folder that was there already is left as it is: it holds
/// other files. A store synced in the background needs
/// ``StoreOptions/FileProtection/completeUntilFirstUserAuthentication`` (or weaker): with
/// `complete`, a locked device cannot open the files.
enum StoreFileProtection {
    /// Sets `protection` on `folder` (nil: nothing).
    static func protect(folder: String, _ protection: StoreOptions.FileProtection?) {
        set(protection, on: [folder])
    }

    /// Sets `protection` on the store file at `path` and its companions that exist.
    static func protect(storeAt path: String, _ protection: StoreOptions.FileProtection?) {
        set(protection, on: ["", "-wal", "-shm", "-locks", "-journal"].map { path + $0 })
    }

    private static func set(_ protection: StoreOptions.FileProtection?, on paths: [String]) {
        #if canImport(Darwin)
            guard let protection else { return }
            let type: FileProtectionType =
                switch protection {
                case .complete: .complete
                case .completeUnlessOpen: .completeUnlessOpen
                case .completeUntilFirstUserAuthentication: .completeUntilFirstUserAuthentication
                case .none: .none
                }
            for path in paths where !path.isEmpty && FileManager.default.fileExists(atPath: path) {
                try? FileManager.default.setAttributes([.protectionKey: type], ofItemAtPath: path)
            }
        #else
            _ = (protection, paths)
        #endif
    }
}
