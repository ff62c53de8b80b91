public import FastJSON
public import SalesforceREST
import SalesforceWire

/// What the server holds after a sync up wrote records: read back once per batch, so the local
/// copy learns the modification date its own write gave each record.
///
/// Without it a record's local date stays the one it was synced down with, while the write
/// moved the server's: the next LEAVE_IF_CHANGED update would take the client's own write for
/// someone else's and leave the record dirty for good.
///
/// The server's date is adopted only when the server record is the client's write: last
/// modified by the syncing user, holding exactly the values sent (compared as the server stores
/// them: numbers by value, date-times by instant, an empty string as null). Anything else means
/// another write came after it, and the local copy keeps its old date, so that write still
/// shows as a conflict.
struct WriteConfirmation {
    /// What the server's version says about a write.
    enum Verdict: Equatable {
        /// The server holds the write; its modification date is `modificationDate`.
        case adopt(modificationDate: JSONValue, server: JSONValue)
        /// Another write came after it (or the record is gone): keep the old date.
        case superseded
    }

    /// The target whose ``SyncUpTarget/serverRecords(_:ids:fields:client:)`` reads the server.
    let target: any SyncUpTarget
    let client: RestClient
    /// The records' id and modification date fields (a parent/children target's children have their own).
    let idFieldName: String
    let modificationDateFieldName: String
    static let lastModifiedById = "LastModifiedById"

    init(target: any SyncUpTarget, client: RestClient, idFieldName: String? = nil, modificationDateFieldName: String? = nil) {
        self.target = target
        self.client = client
        self.idFieldName = idFieldName ?? target.idFieldName
        self.modificationDateFieldName = modificationDateFieldName ?? target.modificationDateFieldName
    }

    /// The verdict for each write the server answered about, by server id. Writes it could not
    /// be asked about (no date field, a failed read) are absent: their outcome stays unknown.
    func verdicts(_ writes: [WrittenRecord]) async -> [String: Verdict] {
        let dateField = modificationDateFieldName
        guard !dateField.isEmpty, !writes.isEmpty, let user = try? await client.currentUserId() else { return [:] }
        var verdicts: [String: Verdict] = [:]
        for (type, group) in Dictionary(grouping: writes, by: \.objectType) where !type.isEmpty {
            var fields = [idFieldName, dateField, Self.lastModifiedById]
            for name in Set(group.flatMap(\.sentFields.keys)).sorted() where !fields.contains(name) { fields.append(name) }
            let ids = Array(Set(group.map(\.serverId))).sorted()
            guard let server = try? await target.serverRecords(type, ids: ids, fields: fields, client: client) else { continue }
            for write in group {
                guard let record = server[write.serverId] else {
                    verdicts[write.serverId] = .superseded
                    continue
                }
                let ours =
                    record[Self.lastModifiedById]?.stringValue == user
                    && write.sentFields.allSatisfy { field, value in CreateAttempt.same(value, record[field] ?? .null) }
                if ours, let date = record[dateField], date.stringValue != nil {
                    verdicts[write.serverId] = .adopt(modificationDate: date, server: record)
                } else {
                    verdicts[write.serverId] = .superseded
                }
            }
        }
        return verdicts
    }
}

/// One record a sync up wrote to the server: its type, its server id and the fields sent.
public struct WrittenRecord: Sendable, Equatable {
    /// The record's sObject type.
    public var objectType: String
    /// Its server id (a create's new one).
    public var serverId: String
    /// The fields exactly as sent.
    public var sentFields: [String: JSONValue]

    /// A record written with `sentFields`.
    public init(objectType: String, serverId: String, sentFields: [String: JSONValue]) {
        self.objectType = objectType
        self.serverId = serverId
        self.sentFields = sentFields
    }
}

extension SyncContext {
    /// What a target that writes records itself (``SyncUpTarget/syncUp(_:context:)``) stores
    /// after a write: the server's modification date of each record the server holds as written
    /// (last modified by the syncing user, holding the values sent), by server id.
    ///
    /// Store it in each record's ``SyncUpTarget/modificationDateFieldName`` with the outcome.
    /// Without it, the record keeps the date it was synced down with while the write moved the
    /// server's, and the next LEAVE_IF_CHANGED update takes the target's own write for someone
    /// else's. Records are read through ``SyncUpTarget/serverRecords(_:ids:fields:client:)``,
    /// one request per type for up to 2,000 records; a record another write changed since, or
    /// that could not be read, is not in the result (keep its old date: a later change by
    /// someone else then still shows as a conflict).
    public func serverModificationDates(of written: [WrittenRecord], target: any SyncUpTarget) async -> [String: JSONValue] {
        var dates: [String: JSONValue] = [:]
        for (id, verdict) in await WriteConfirmation(target: target, client: client).verdicts(written) {
            if case .adopt(let date, _) = verdict { dates[id] = date }
        }
        return dates
    }
}

extension SyncUpTarget {
    /// Reads the records through sObject Collections' retrieve, 2,000 ids a request.
    public func serverRecords(_ objectType: String, ids: [String], fields: [String], client: RestClient) async throws
        -> [String: JSONValue]
    {
        var records: [String: JSONValue] = [:]
        for start in stride(from: 0, to: ids.count, by: 2000) {
            let slice = Array(ids[start..<min(ids.count, start + 2000)])
            for (id, record) in zip(slice, try await client.retrieveRecords(objectType, ids: slice, fields: fields)) {
                if let record { records[id] = record }
            }
        }
        return records
    }
}
