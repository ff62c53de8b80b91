import EncryptedSQLite
import Foundation
import GRDB

extension SmartStore {
    /// Frees what can be read again: SQLite's page caches of the store's connections and, for
    /// an encrypted store, the decrypted pages its connections share
    /// (``StoreOptions/sharedCacheKiB``). Call it on memory pressure; an encrypted store also
    /// drops its shared pages by itself when the app receives a memory warning or goes to the
    /// background.
    public func releaseMemory() {
        if let pool = writer as? DatabasePool {
            pool.releaseMemory()
        } else if let queue = writer as? DatabaseQueue {
            queue.releaseMemory()
        }
        if let lease { CipherVFS.releasePageCache(path: lease.path) }
    }
}

/// Drops an encrypted store's shared decrypted pages when UIKit says the app received a memory
/// warning or went to the background: kept there, they would count against a suspended app's
/// memory, and hold plaintext after the device locks. The notifications are observed by name,
/// so nothing here needs UIKit (elsewhere nobody posts them).
final class MemoryRelease: Sendable {
    static let names = [
        Notification.Name("UIApplicationDidReceiveMemoryWarningNotification"),
        Notification.Name("UIApplicationDidEnterBackgroundNotification"),
    ]

    /// The observation tokens: opaque, only handed back to the notification center.
    private struct Tokens: @unchecked Sendable {
        let values: [any NSObjectProtocol]
    }

    private let tokens: Tokens

    /// Observes the notifications for the store at `path` leased by `lease`.
    init(lease: CipherLease) {
        let path = lease.path
        tokens = Tokens(
            values: Self.names.map { name in
                NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { _ in
                    CipherVFS.releasePageCache(path: path)
                }
            })
    }

    deinit {
        for token in tokens.values { NotificationCenter.default.removeObserver(token) }
    }
}
