import FastJSON
import SalesforceREST
import SmartStore
import SOQL

/// Keeps a create whose response was lost from creating a second record, without ever taking
/// another client's record for it by guesswork.
///
/// Before a batch of creates is sent, each record is stamped in the store with a
/// ``CreateAttempt``: the server's time read just before (its `Date` header, never the
/// client's clock) and the fields exactly as sent. Learning the create's outcome removes the
/// stamp. A record still carrying one on a later sync up may exist on the server: the
/// reconciler reads the records of its type that the same user created at or after that time,
/// which no local entry holds, and compares them with what was sent:
///
/// - no more matches than attempts that sent those values: each match is adopted (the record
///   takes its id). A record edited since the send stays dirty, as an update of the adopted
///   record, so the edit goes up next. Attempts left without a match were lost: sent again.
/// - more matches than attempts: which is ours cannot be told. The records get a
///   `CREATE_OUTCOME_UNKNOWN` error in `__last_error__` and are not sent until
///   ``SyncManager/resolveCreateAttempt(entryId:soupName:adopting:)`` settles them.
///
/// Exact only with an idempotency field (``CollectionSyncUpTarget/idempotencyFieldName``);
/// the README's guarantees section says what this default path promises.
struct CreateReconciler {
    let store: SmartStore
    let client: RestClient
    let soup: String
    let idFieldName: String
    let modificationDateFieldName: String
    /// Server records compared per object type at most; more is reported as ambiguous.
    static let maximumCandidates = 2000
    static let errorCode = "CREATE_OUTCOME_UNKNOWN"

    /// What to do with a record whose earlier create may have landed.
    enum Resolution {
        /// The server record is ours and holds the record's values: store it clean.
        case adopted(JSONValue)
        /// Ours, but the record was edited since the send: store it with the server id, dirty as an update.
        case adoptedWithEdits(JSONValue)
        /// Cannot be told: store it with its error and send nothing.
        case ambiguous(JSONValue)
    }

    private struct Pending {
        let entryId: Int64
        let record: JSONValue
        let attempt: CreateAttempt
    }

    private struct Candidate {
        let record: JSONValue
        let id: String
        let created: Int64
    }

    /// Resolutions for the records (creates) carrying an attempt; the others are not in the result.
    func reconcile(_ records: [JSONValue], fields: [String]) async throws -> [Int64: Resolution] {
        var resolutions: [Int64: Resolution] = [:]
        var byType: [String: [Pending]] = [:]
        for record in records where CreateAttempt.isRecorded(in: record) {
            guard let entryId = record["_soupEntryId"]?.int64Value else { continue }
            guard let attempt = CreateAttempt(record), let type = record["attributes"]?["type"]?.stringValue else {
                resolutions[entryId] = .ambiguous(Self.failed(record, "Its create attempt is recorded in a form this version cannot read."))
                continue
            }
            byType[type, default: []].append(Pending(entryId: entryId, record: record, attempt: attempt))
        }
        guard !byType.isEmpty else { return resolutions }
        let user = try await client.currentUserId()
        for (type, pending) in byType {
            let since = pending.map(\.attempt.notBefore).min() ?? 0
            let selected = Set(pending.flatMap(\.attempt.sent.keys))
            guard let candidates = try await candidates(type, since: since, user: user, fields: selected) else {
                for item in pending {
                    resolutions[item.entryId] = .ambiguous(Self.failed(item.record,
                        "More than \(Self.maximumCandidates) \(type) records were created by this user since the attempt."))
                }
                continue
            }
            for group in Dictionary(grouping: pending, by: { Self.signature($0.attempt.sent) }).values {
                resolve(group, among: candidates, fields: fields, into: &resolutions)
            }
        }
        return resolutions
    }

    /// Attempts that sent the same values: matched as a group, since they cannot be told apart.
    private func resolve(_ group: [Pending], among candidates: [Candidate], fields: [String], into resolutions: inout [Int64: Resolution]) {
        guard let first = group.first else { return }
        let since = group.map(\.attempt.notBefore).min() ?? 0
        let matches = candidates.filter { $0.created >= since && first.attempt.wasSent(as: $0.record) }
        if matches.count > group.count {
            let ids = matches.prefix(10).map(\.id).joined(separator: ", ")
            for item in group {
                resolutions[item.entryId] = .ambiguous(Self.failed(item.record, "\(matches.count) records created by this user since the attempt hold the values it sent (\(ids)), for \(group.count) attempt(s)."))
            }
            return
        }
        // Latest match to the latest attempt it can belong to (created at or after its time).
        var open = group.sorted { ($0.attempt.notBefore, $0.entryId) < ($1.attempt.notBefore, $1.entryId) }
        for match in matches.sorted(by: { ($0.created, $0.id) > ($1.created, $1.id) }) {
            guard let index = open.lastIndex(where: { $0.attempt.notBefore <= match.created }) else { continue }
            let item = open.remove(at: index)
            resolutions[item.entryId] = adopt(item, match, fields: fields)
        }
    }

    private func adopt(_ item: Pending, _ match: Candidate, fields: [String]) -> Resolution {
        let local = SyncUpRecord(record: item.record, idFieldName: idFieldName, modificationDateFieldName: modificationDateFieldName)
        var record = local.cleaned(id: match.id)
        if let date = match.record[modificationDateFieldName], !modificationDateFieldName.isEmpty { record[modificationDateFieldName] = date }
        guard item.attempt.differs(from: local.fields(fields)) else { return .adopted(record) }
        record[LocalFields.local] = true
        record[LocalFields.locallyUpdated] = true
        return .adoptedWithEdits(record)
    }

    /// Records of `type` the user created at or after `since` that no local entry holds, oldest
    /// first; nil when there are more than ``maximumCandidates``.
    private func candidates(_ type: String, since: Int64, user: String, fields: Set<String>) async throws -> [Candidate]? {
        var names = [idFieldName, "CreatedDate"]
        if !modificationDateFieldName.isEmpty { names.append(modificationDateFieldName) }
        for field in fields.sorted() where !names.contains(where: { $0.lowercased() == field.lowercased() }) { names.append(field) }
        let condition = Condition.and([
            .comparison(FieldPath(["CreatedDate"]), .greaterThanOrEqual, .dateTime(LocalFields.timestamp(since))),
            .comparison(FieldPath(["CreatedById"]), .equal, .string(user)),
        ])
        let query = Query(selectItems: names.map { .field(FieldPath([$0])) }, object: type, condition: condition,
                          orderBy: [OrderItem(field: FieldPath(["CreatedDate"])), OrderItem(field: FieldPath([idFieldName]))],
                          limit: Self.maximumCandidates + 1)
        let records = try await client.allRecords(query.description)
        guard records.count <= Self.maximumCandidates else { return nil }
        return try records.compactMap { record in
            guard let id = record[idFieldName]?.stringValue, let created = record["CreatedDate"]?.stringValue.flatMap(LocalFields.milliseconds),
                  try store.lookupSoupEntryId(soup: soup, path: idFieldName, value: .string(id)) == nil else { return nil }
            return Candidate(record: record, id: id, created: created)
        }
    }

    /// Stamps the records `isCreate` selects with an attempt (the server's time now and the
    /// fields `fields` sends), in the store, before they are sent; returns `records` stamped.
    /// Without a field list nothing is sent, so nothing is stamped.
    func stamp(_ records: [JSONValue], where isCreate: (JSONValue) -> Bool, fields: [String]?) async throws -> [JSONValue] {
        guard let fields, records.contains(where: isCreate) else { return records }
        let now = try await client.serverTime()
        var result = records
        var stamps: [Int64: JSONValue] = [:]
        for (index, record) in records.enumerated() where isCreate(record) {
            guard let id = record["_soupEntryId"]?.int64Value else { continue }
            let sent = SyncUpRecord(record: record, idFieldName: idFieldName, modificationDateFieldName: modificationDateFieldName).fields(fields)
            let attempt = CreateAttempt(notBefore: now, sent: sent).json
            result[index][LocalFields.createAttempt] = attempt
            stamps[id] = attempt
        }
        try store.setField(LocalFields.createAttempt, values: stamps, in: soup)
        return result
    }

    /// The record with a `CREATE_OUTCOME_UNKNOWN` error saying why, and how to settle it.
    static func failed(_ record: JSONValue, _ reason: String) -> JSONValue {
        var copy = record
        let message = "A create of this record was sent but its outcome is unknown. \(reason) "
            + "Settle it with SyncManager.resolveCreateAttempt: adopt the server record that is this one, or create it again."
        copy[LocalFields.lastError] = .string(JSONValue.array([SalesforceErrorItem(code: errorCode, message: message).json]).jsonString)
        return copy
    }

    /// The sent values as one comparable text (keys in order).
    private static func signature(_ sent: [String: JSONValue]) -> String {
        sent.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.jsonString)" }.joined(separator: "\u{1}")
    }
}
