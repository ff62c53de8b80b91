public import FastJSON
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
    /// A create sent whose outcome is not known yet: the server time before it was first sent,
    /// before it was last sent, the fields sent, and whether the API answered its last request
    /// (`{"notBefore": ms, "lastSent": ms, "sent": {…}, "ended": true}`); see <doc:Guarantees>.
    public static let createAttempt = "__create_attempt__"
    /// An update sent whose outcome is not recorded yet (LEAVE_IF_CHANGED, MERGE_FIELDS): the fields sent
    /// (`{"sent": {…}}`); see <doc:ConflictsAndProcesses>.
    public static let updateAttempt = "__update_attempt__"

    /// The fields a record from the server never sets that a page ingest would otherwise keep:
    /// the engine's bookkeeping a sync down does not set itself (it sets the flags and the sync
    /// id; the ingest sets `_soupEntryId` and `_soupLastModifiedDate`), and the SDK's
    /// `_soupCreatedDate`. Every sync down removes them from what the server sent, so that a
    /// hostile or broken server's `__create_attempt__` or `__last_error__` is never read back
    /// as bookkeeping.
    static let ownedFields = [lastError, createAttempt, updateAttempt, "_soupCreatedDate"]

    /// The engine's bookkeeping fields: the flags, the sync id, the last error and the attempts.
    static let bookkeeping: Set<String> = [
        local, locallyCreated, locallyUpdated, locallyDeleted, syncId, lastError, createAttempt, updateAttempt,
    ]

    /// Whether `key` is a field the engine (``bookkeeping``) or the store (`_soup…`) owns.
    static func isOwned(_ key: String) -> Bool { key.hasPrefix("_soup") || bookkeeping.contains(key) }

    /// `record`'s members without any field the engine or the store owns (``isOwned(_:)``): a
    /// record from the server as it may be written.
    static func serverFields(of record: [String: JSONValue]) -> [String: JSONValue] {
        record.filter { key, _ in !isOwned(key) }
    }

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

    /// Whether the record was created locally (`__locally_created__`; the SDK's `isLocallyCreated`).
    public static func isLocallyCreated(_ record: JSONValue) -> Bool { isSet(record[locallyCreated]) }

    /// Whether the record was changed locally since it was synced (`__locally_updated__`).
    public static func isLocallyUpdated(_ record: JSONValue) -> Bool { isSet(record[locallyUpdated]) }

    /// Whether the record was deleted locally (`__locally_deleted__`).
    public static func isLocallyDeleted(_ record: JSONValue) -> Bool { isSet(record[locallyDeleted]) }

    /// Whether the record has a local change to sync up (`__local__`; the SDK's `isDirty`).
    public static func isDirty(_ record: JSONValue) -> Bool { isSet(record[local]) }

    /// A flag as any SDK writes it: JSON `true`, `1`, or the text `"true"` / `"1"` (the
    /// Android SDK keeps its booleans as text in index columns).
    static func isSet(_ value: JSONValue?) -> Bool {
        switch value {
        case .bool(let flag)?: flag
        case .int(let number)?: number != 0
        case .string(let text)?: text == "true" || text == "1"
        default: false
        }
    }

    /// Smart SQL: the soup's record is dirty. Matches `1` (JSON booleans as this store and iOS
    /// project them) and the text `'true'` / `'1'` (index columns a store written by Android holds).
    static func dirtyPredicate(soup: String) -> String {
        "{\(soup):\(local)} in (1, '1', 'true')"
    }

    /// Smart SQL: the soup's record is clean (the flag false or absent, as any SDK writes it).
    static func cleanPredicate(soup: String) -> String {
        "coalesce({\(soup):\(local)} not in (1, '1', 'true'), 1)"
    }
}
