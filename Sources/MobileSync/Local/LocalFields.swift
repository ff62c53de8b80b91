import FastJSON
import Foundation

/// The bookkeeping fields Mobile Sync keeps in each record, with the SDK's names.
public enum LocalFields {
    /// true when the record has a local change to sync up (any of the three below).
    public static let local = "__local__"
    /// true when the record was created locally and has no server record yet.
    public static let locallyCreated = "__locally_created__"
    /// true when the record was changed locally since it was synced.
    public static let locallyUpdated = "__locally_updated__"
    /// true when the record was deleted locally (it stays in the soup until the sync up).
    public static let locallyDeleted = "__locally_deleted__"
    /// The id of the sync down that last wrote the record: ghost cleanup only removes its own records.
    public static let syncId = "__sync_id__"
    /// The server's error from the record's last failed sync up, as JSON text.
    public static let lastError = "__last_error__"
    /// A create sent whose outcome is not known yet: the server time before it was sent and
    /// the fields sent (`{"notBefore": ms, "sent": {…}}`); see the README's guarantees.
    public static let createAttempt = "__create_attempt__"

    /// Fields written into every record a sync down saves (clean), plus its sync id.
    static func clean(syncId: Int64) -> [String: JSONValue] {
        [local: false, locallyCreated: false, locallyUpdated: false, locallyDeleted: false, LocalFields.syncId: .int(syncId)]
    }

    /// A new local id: `local_` and 18 random alphanumerics (never a Salesforce id).
    public static func newLocalId() -> String {
        let alphabet = Array("0123456789abcdefghijklmnopqrstuvwxyz")
        var generator = SystemRandomNumberGenerator()
        return "local_" + String((0..<18).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
    }

    /// Whether an id was made locally (`local_…`).
    public static func isLocalId(_ id: String?) -> Bool { id?.hasPrefix("local_") ?? false }
}
