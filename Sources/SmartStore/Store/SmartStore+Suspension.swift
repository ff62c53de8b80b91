import Foundation
import GRDB

extension SmartStore {
    /// Suspends every store opened with ``StoreOptions/observesSuspensionNotifications``: they
    /// finish what they are doing, release their file locks and refuse new work until
    /// ``resumeStores()``. Call it when an app is about to be suspended (after its syncs have
    /// stopped): a suspended app that holds a lock on a file in an app-group container is ended
    /// by the system (the 0xdead10cc exception). (GRDB's `Database.suspendNotification`.)
    public static func suspendStores() {
        NotificationCenter.default.post(name: Database.suspendNotification, object: nil)
    }

    /// Resumes the stores ``suspendStores()`` suspended (GRDB's `Database.resumeNotification`).
    public static func resumeStores() {
        NotificationCenter.default.post(name: Database.resumeNotification, object: nil)
    }
}
