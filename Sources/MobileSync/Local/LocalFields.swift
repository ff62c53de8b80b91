import FastJSON
import Foundation

/// The bookkeeping fields Mobile Sync keeps in each record, with the SDK's names.
public enum LocalFields {
    public static let local = "__local__"
    public static let locallyCreated = "__locally_created__"
    public static let locallyUpdated = "__locally_updated__"
    public static let locallyDeleted = "__locally_deleted__"
    public static let syncId = "__sync_id__"
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
