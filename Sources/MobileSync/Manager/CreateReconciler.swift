import FastJSON
import SalesforceREST
import SmartStore
import SOQL

/// Keeps a create whose response was lost from creating a second record.
///
/// Before a batch of creates is sent, each record is stamped with `__create_attempt__` (the
/// time) in the store. A successful sync up removes the stamp. A record that still carries
/// one on a later sync up may already exist on the server: the reconciler looks for records of
/// its type created since the attempt (minus a margin) whose sent fields all equal the local
/// values and whose id no local entry holds. Matches are adopted (the local record takes the
/// server id, nothing is sent); records without one are created as usual.
///
/// This is a heuristic for objects without an external-id field; with one, prefer
/// ``CollectionSyncUpTarget/idempotencyFieldName`` (creates become upserts and are exact).
struct CreateReconciler {
    let store: SmartStore
    let client: RestClient
    let soup: String
    let idFieldName: String
    /// Creates take a while to land; look that far before the recorded attempt.
    static let margin: Int64 = 5 * 60 * 1000

    /// Records adopted from the server (entry id → cleaned record), for records stamped earlier.
    ///
    /// Records with identical sent values are matched as a group: the unclaimed server records
    /// found for them are adopted in creation order, and the rest are created again.
    func adopt(_ records: [JSONValue], fields: [String]) async throws -> [Int64: JSONValue] {
        var groups: [String: [JSONValue]] = [:]
        var conditionsByGroup: [String: (type: String, conditions: [Condition], earliest: Int64)] = [:]
        for record in records {
            guard let attempt = record[LocalFields.createAttempt]?.int64Value, let type = record["attributes"]?["type"]?.stringValue else { continue }
            var conditions: [Condition] = []
            for field in fields where field != idFieldName && !field.contains(".") {
                switch record[field] {
                case .string(let text)?: conditions.append(.comparison(FieldPath([field]), .equal, .string(text)))
                case .int(let int)?: conditions.append(.comparison(FieldPath([field]), .equal, .number(String(int))))
                case .bool(let bool)?: conditions.append(.comparison(FieldPath([field]), .equal, .boolean(bool)))
                case .null?: conditions.append(.comparison(FieldPath([field]), .equal, .null))
                default: continue
                }
            }
            let signature = type + "|" + conditions.map(\.description).joined(separator: "|")
            groups[signature, default: []].append(record)
            let earliest = min(attempt, conditionsByGroup[signature]?.earliest ?? attempt)
            conditionsByGroup[signature] = (type, conditions, earliest)
        }
        var adopted: [Int64: JSONValue] = [:]
        for (signature, group) in groups {
            guard let (type, fieldConditions, earliest) = conditionsByGroup[signature] else { continue }
            let since = Condition.comparison(FieldPath(["CreatedDate"]), .greaterThanOrEqual, .dateTime(LocalFields.timestamp(max(earliest, Int64.min + Self.margin) - Self.margin)))
            let query = Query(selectItems: [.field(FieldPath([idFieldName]))], object: type, condition: .and([since] + fieldConditions),
                              orderBy: [OrderItem(field: FieldPath(["CreatedDate"])), OrderItem(field: FieldPath([idFieldName]))],
                              limit: group.count + 10)
            let candidates = try await client.query(query.description).records().compactMap { $0[idFieldName]?.stringValue }
            let unclaimed = try candidates.filter { try store.lookupSoupEntryId(soup: soup, path: idFieldName, value: .string($0)) == nil }
            let ordered = group.sorted { ($0["_soupEntryId"]?.int64Value ?? 0) < ($1["_soupEntryId"]?.int64Value ?? 0) }
            for (record, serverId) in zip(ordered, unclaimed) {
                guard let entryId = record["_soupEntryId"]?.int64Value else { continue }
                adopted[entryId] = SyncUpRecord(record: record, idFieldName: idFieldName, modificationDateFieldName: "").cleaned(id: serverId)
            }
        }
        return adopted
    }

    /// Stamps the records about to be created (those `isCreate` selects and not yet stamped)
    /// with the attempt time, in the store (one statement), before they are sent. Returns
    /// `records` with the stamp set on those.
    func stamp(_ records: [JSONValue], where isCreate: (JSONValue) -> Bool, now: Int64) throws -> [JSONValue] {
        var result = records
        var ids: [Int64] = []
        for (index, record) in records.enumerated() where isCreate(record) && record[LocalFields.createAttempt] == nil {
            guard let id = record["_soupEntryId"]?.int64Value else { continue }
            result[index][LocalFields.createAttempt] = .int(now)
            ids.append(id)
        }
        try store.setField(LocalFields.createAttempt, to: .int(now), entryIds: ids, in: soup)
        return result
    }
}
