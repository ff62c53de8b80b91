import FastJSON
import Foundation
import SalesforceWire
import SmartStore

/// The shadows Mobile Sync keeps beside a record (see `SmartStore.captureShadow`): its `base`
/// and, while it is in conflict, the `conflict` document.
enum ConflictShadows {
    /// The record as last synced, kept automatically when `__local__` is set.
    static let base = "base"
    /// `{"kind": …, "fields": […], "server": {…} | null, "detectedAt": ms}` while in conflict.
    static let conflict = "conflict"
    /// The `errorCode` of the `__last_error__` item a conflicting record carries.
    static let errorCode = "SYNC_CONFLICT"

    /// The conflict document of a record.
    static func document(kind: SyncConflict.Kind, fields: [String], server: JSONValue?, at time: Int64) -> JSONValue {
        [
            "kind": .string(kind.rawValue), "fields": .array(fields.map(JSONValue.string)), "server": server ?? .null,
            "detectedAt": .int(time),
        ]
    }

    /// The `__last_error__` text of a conflicting record: one `SYNC_CONFLICT` item naming the
    /// kind and the fields.
    static func lastError(kind: SyncConflict.Kind, fields: [String]) -> JSONValue {
        let message: String =
            switch kind {
            case .changedOnBothSides:
                fields.isEmpty
                    ? "Changed here and on the server since it was synced."
                    : "Changed here and on the server since it was synced; the versions differ on \(fields.joined(separator: ", "))."
            case .deletedOnServer: "Changed here, deleted on the server."
            case .deletedLocally: "Deleted here, changed on the server."
            }
        let item = SalesforceErrorItem(
            code: errorCode, message: "\(kind.rawValue): \(message) Settle it with SyncManager.resolveConflict, or msync resolve.",
            fields: fields)
        return .string(JSONValue.array([item.json]).jsonString)
    }

    /// The `__last_error__` text of a record of a parent/children tree held back because
    /// another record of the tree is in conflict (the tree goes up whole or not at all).
    static func heldInTree() -> JSONValue {
        let item = SalesforceErrorItem(
            code: errorCode, message: "HELD_BY_TREE: Not sent: another record of its parent/children tree is in conflict.")
        return .string(JSONValue.array([item.json]).jsonString)
    }

    /// Records a conflict on an entry being modified with its shadows
    /// (`SmartStore.modify(_:in:shadows:_:)`): the `__last_error__` item, no update attempt, and
    /// the conflict document beside it. `fields` empty for a change on both sides: the fields
    /// of `list` changed on both sides to different values, or when there are none (a
    /// LEAVE_IF_CHANGED sync up holds back a record the server changed at all), the fields of
    /// `list` where the local and server versions differ: what a conflict screen shows.
    /// Returns the conflict as reported.
    static func record(
        _ kind: SyncConflict.Kind, fields known: [String], server: JSONValue?, comparing list: [String], soup: String,
        in edit: inout EntryWithShadows
    ) -> SyncConflict? {
        guard let local = edit.entry, let entryId = local["_soupEntryId"]?.int64Value else { return nil }
        var fields = known
        if fields.isEmpty, kind == .changedOnBothSides, let server {
            fields = ThreeWayMerge.conflictingFields(base: edit.shadows[base], local: local, server: server, fields: list)
            if fields.isEmpty { fields = list.filter { !CreateAttempt.same(local[$0] ?? .null, server[$0] ?? .null) } }
        }
        let at = now()
        edit.entry?[LocalFields.lastError] = lastError(kind: kind, fields: fields)
        edit.entry?[LocalFields.updateAttempt] = nil
        edit.shadows[conflict] = document(kind: kind, fields: fields, server: server, at: at)
        return SyncConflict(
            soupName: soup, entryId: entryId, kind: kind, fields: fields, local: edit.entry ?? local, server: server,
            base: edit.shadows[base], detectedAt: at)
    }

    /// A stored conflict, read back.
    static func conflict(soupName: String, entryId: Int64, local: JSONValue, shadows: [String: JSONValue]) -> SyncConflict? {
        guard let document = shadows[conflict], let kind = document["kind"]?.stringValue.flatMap(SyncConflict.Kind.init(rawValue:))
        else { return nil }
        var server = document["server"]
        if server?.isNull == true { server = .none } // deleted on the server (JSON null is a value here)
        return SyncConflict(
            soupName: soupName, entryId: entryId, kind: kind, fields: document["fields"]?.arrayValue?.compactMap(\.stringValue) ?? [],
            local: local, server: server, base: shadows[base], detectedAt: document["detectedAt"]?.int64Value ?? 0)
    }

    static func now() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }
}
