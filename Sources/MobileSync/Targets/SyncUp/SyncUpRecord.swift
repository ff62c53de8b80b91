import FastJSON
import SalesforceREST
import SalesforceWire

/// The action a dirty record asks for.
enum SyncUpAction: Equatable {
    case none, create, update, delete, deleteLocalOnly
}

/// Helpers shared by sync up targets: actions, field maps, local results.
struct SyncUpRecord {
    let record: JSONValue
    let idFieldName: String
    let modificationDateFieldName: String

    var id: String? { record[idFieldName]?.stringValue }
    var objectType: String? { record["attributes"]?["type"]?.stringValue }

    private func flag(_ name: String) -> Bool { LocalFields.isSet(record[name]) }

    /// Delete wins over create, create over update (the SDK's order).
    var action: SyncUpAction {
        if flag(LocalFields.locallyDeleted) {
            // A record without a server id cannot be on the server: deleting it is local only.
            let serverId = id.map { !$0.isEmpty && !LocalFields.isLocalId($0) } ?? false
            return flag(LocalFields.locallyCreated) || !serverId ? .deleteLocalOnly : .delete
        }
        if flag(LocalFields.locallyCreated) { return .create }
        if flag(LocalFields.locallyUpdated) { return .update }
        return .none
    }

    /// The fields to send: the listed ones present in the record (explicit nulls kept), never
    /// the id or modification date, never relationship paths.
    func fields(_ list: [String]) -> [String: JSONValue] {
        var fields: [String: JSONValue] = [:]
        for name in list where name != idFieldName && name != modificationDateFieldName && !name.contains(".") {
            if let value = record[name] { fields[name] = value }
        }
        return fields
    }

    /// The record cleaned after a successful sync up, with its (possibly new) server id.
    func cleaned(id newId: String?) -> JSONValue {
        var copy = record
        if let newId { copy[idFieldName] = .string(newId) }
        copy[LocalFields.local] = false
        copy[LocalFields.locallyCreated] = false
        copy[LocalFields.locallyUpdated] = false
        copy[LocalFields.locallyDeleted] = false
        copy[LocalFields.lastError] = nil
        copy[LocalFields.createAttempt] = nil
        copy[LocalFields.updateAttempt] = nil
        return copy
    }

    /// Epoch ms of the record's local modification date (as last synced down), if any.
    var lastModified: Int64? { record[modificationDateFieldName]?.stringValue.flatMap(SalesforceTime.parse) }
}

extension SalesforceErrorItem {
    /// Whether the error means the record is gone on the server.
    var meansRecordDoesNotExist: Bool {
        code == "ENTITY_IS_DELETED" || code == "INVALID_CROSS_REFERENCE_KEY" || code == "NOT_FOUND"
    }
}
