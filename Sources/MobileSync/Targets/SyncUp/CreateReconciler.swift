import FastJSON
import SOQL
import SalesforceREST
import SalesforceWire
import SmartStore

/// Keeps a create whose response was lost from creating a second record, without ever taking
/// another client's record for it by guesswork.
///
/// Before a batch of creates is sent, each record is stamped in the store with a
/// ``CreateAttempt``: the server's time read just before (its `Date` header, never the
/// client's clock) and the fields exactly as sent. Learning the create's outcome removes the
/// stamp. A record still carrying one on a later sync up may exist on the server: the
/// reconciler reads the records of its type that the same user created at or after that time,
/// which no local entry holds (a clean copy a sync down made meanwhile aside: it is folded into
/// the record), and compares them with what was sent:
///
/// - no more matches than attempts that sent those values: each match is adopted (the record
///   takes its id). A record edited since the send stays dirty, as an update of the adopted
///   record, so the edit goes up next. Attempts left without a match are sent again once they
///   can no longer land (see the last case), their window still reaching back to the first attempt.
/// - a match that fits attempts which sent different values: ambiguous, as below.
/// - more matches than attempts: which is ours cannot be told. The records get a
///   `CREATE_OUTCOME_UNKNOWN` error in `__last_error__` and are not sent until
///   ``SyncManager/resolveCreateAttempt(entryId:soupName:adopting:idFieldName:)`` settles them.
/// - an attempt without a match whose latest sending is more recent than
///   ``SyncManager/lostCreateWait`` (by the server's clock) may still be running on the server
///   and land (a sender killed mid-request, a gateway's 504 while the server works on): the
///   record gets a `CREATE_OUTCOME_PENDING` error and is not sent until a sync up after that
///   time finds it landed (adopted) or not (sent again).
///
/// Exact only with an idempotency field (``CollectionSyncUpTarget/idempotencyFieldName``);
/// the Guarantees article (MobileSync.docc, "How lost creates are reconciled") says what this
/// default path promises.
struct CreateReconciler {
    let store: SmartStore
    let client: RestClient
    let soup: String
    let idFieldName: String
    let modificationDateFieldName: String
    /// Where stamps take the server's time from (one reading per sync up).
    let clock: ServerClock
    /// How long after its latest sending a create without a match may still land, in ms.
    let lostCreateWait: Int64
    /// Server records compared per object type at most; more is reported as ambiguous.
    static let maximumCandidates = 2000
    static let errorCode = "CREATE_OUTCOME_UNKNOWN"
    static let pendingCode = "CREATE_OUTCOME_PENDING"

    /// What to do with a record whose earlier create may have landed.
    enum Resolution: Equatable {
        /// The server record `id` is this record's create (`modificationDate`: its date).
        /// `copy`: a clean entry a sync down made of it meanwhile, to fold into this one.
        case adopt(id: String, modificationDate: JSONValue?, copy: Int64?)
        /// Cannot be told (the message says why): keep the record unsent, with an error.
        case ambiguous(String)
        /// No match yet, but the latest sending may still land: keep the record unsent until
        /// the server's time `until` (epoch ms), with an error saying so.
        case pending(sent: Int64, until: Int64)
    }

    private struct Pending {
        let entryId: Int64
        let attempt: CreateAttempt
    }

    private struct Candidate {
        let record: JSONValue
        let id: String
        let created: Int64
        /// The entry holding this id already, when it is a sync down's clean copy.
        let copy: Int64?
    }

    /// Resolutions for the records (creates) carrying a readable attempt; the others are not
    /// in the result (a record without a type is sent again, and fails as before).
    func reconcile(_ records: [JSONValue]) async throws -> [Int64: Resolution] {
        var resolutions: [Int64: Resolution] = [:]
        var byType: [String: [Pending]] = [:]
        for record in records where CreateAttempt.isRecorded(in: record) {
            guard let entryId = record["_soupEntryId"]?.int64Value, let type = record["attributes"]?["type"]?.stringValue else { continue }
            guard let attempt = CreateAttempt(record) else {
                resolutions[entryId] = .ambiguous("Its create attempt is recorded in a form this version cannot read.")
                continue
            }
            byType[type, default: []].append(Pending(entryId: entryId, attempt: attempt))
        }
        guard !byType.isEmpty else { return resolutions }
        let user = try await client.currentUserId()
        for (type, pending) in byType {
            let since = pending.map(\.attempt.notBefore).min() ?? 0
            let selected = Set(pending.flatMap(\.attempt.sent.keys))
            guard let candidates = try await candidates(type, since: since, user: user, fields: selected) else {
                for item in pending {
                    resolutions[item.entryId] = .ambiguous(
                        "More than \(Self.maximumCandidates) \(type) records were created by this user since the attempt.")
                }
                continue
            }
            let groups = Array(Dictionary(grouping: pending, by: { CreateAttempt.signature($0.attempt.sent) }).values)
            let matches = groups.map { group in
                candidates.filter { candidate in
                    group.contains { candidate.created >= $0.attempt.notBefore } && group[0].attempt.wasSent(as: candidate.record)
                }
            }
            // A record matching attempts that sent different values (one a subset of the other) belongs to neither for sure.
            let shared = Set(
                matches.flatMap { $0.map(\.id) }.reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 }.filter { $0.value > 1 }.keys)
            for (group, found) in zip(groups, matches) {
                if let id = found.first(where: { shared.contains($0.id) })?.id {
                    for item in group {
                        resolutions[item.entryId] = .ambiguous("Record \(id) matches attempts that sent different values.")
                    }
                } else {
                    resolve(group, among: found, into: &resolutions)
                }
            }
        }
        try await holdRecent(byType.values.joined().filter { resolutions[$0.entryId] == nil }, into: &resolutions)
        return resolutions
    }

    /// Attempts without a match whose latest sending may still land are held back (pending);
    /// the others were lost and are sent again.
    private func holdRecent(_ unmatched: [Pending], into resolutions: inout [Int64: Resolution]) async throws {
        guard lostCreateWait > 0, !unmatched.isEmpty else { return }
        let now = try await clock.now()
        let latest = now.addingReportingOverflow(lostCreateWait)
        for item in unmatched where !item.attempt.ended {
            // A stamp from the future (a wrong or altered one) holds no longer than one sent now.
            let (until, overflow) = item.attempt.lastSent.addingReportingOverflow(lostCreateWait)
            let bounded = overflow || latest.overflow ? Int64.max : min(until, latest.partialValue)
            if now < bounded { resolutions[item.entryId] = .pending(sent: item.attempt.lastSent, until: bounded) }
        }
    }

    /// Attempts that sent the same values, matched as a group: they cannot be told apart.
    private func resolve(_ group: [Pending], among matches: [Candidate], into resolutions: inout [Int64: Resolution]) {
        if matches.count > group.count {
            let ids = matches.prefix(10).map(\.id).joined(separator: ", ")
            for item in group {
                resolutions[item.entryId] = .ambiguous(
                    "\(matches.count) records created by this user since the attempt hold the values it sent (\(ids)), for \(group.count) attempt(s)."
                )
            }
            return
        }
        // Latest match to the latest attempt it can belong to (created at or after its time).
        var open = group.sorted { ($0.attempt.notBefore, $0.entryId) < ($1.attempt.notBefore, $1.entryId) }
        for match in matches.sorted(by: { ($0.created, $0.id) > ($1.created, $1.id) }) {
            guard let index = open.lastIndex(where: { $0.attempt.notBefore <= match.created }) else { continue }
            let item = open.remove(at: index)
            resolutions[item.entryId] = .adopt(
                id: match.id, modificationDate: modificationDateFieldName.isEmpty ? nil : match.record[modificationDateFieldName],
                copy: match.copy)
        }
    }

    /// Records of `type` the user created at or after `since`, oldest first, that no local
    /// entry holds but a sync down's clean copy; nil when there are more than ``maximumCandidates``.
    private func candidates(_ type: String, since: Int64, user: String, fields: Set<String>) async throws -> [Candidate]? {
        var names = [idFieldName, "CreatedDate"]
        if !modificationDateFieldName.isEmpty { names.append(modificationDateFieldName) }
        for field in fields.sorted() where !names.contains(where: { $0.lowercased() == field.lowercased() }) { names.append(field) }
        let condition = Condition.and([
            .comparison(FieldPath(["CreatedDate"]), .greaterThanOrEqual, .dateTime(SalesforceTime.format(since, zulu: true))),
            .comparison(FieldPath(["CreatedById"]), .equal, .string(user)),
        ])
        let query = Query(
            selectItems: names.map { .field(FieldPath([$0])) }, object: type, condition: condition,
            orderBy: [OrderItem(field: FieldPath(["CreatedDate"])), OrderItem(field: FieldPath([idFieldName]))],
            limit: Self.maximumCandidates + 1)
        let records = try await client.allRecords(query.description)
        guard records.count <= Self.maximumCandidates else { return nil }
        var candidates: [Candidate] = []
        for record in records {
            guard let id = record[idFieldName]?.stringValue,
                let created = record["CreatedDate"]?.stringValue.flatMap(SalesforceTime.parse)
            else { continue }
            var copy: Int64?
            if let holder = try await store.lookupSoupEntryId(soup: soup, path: idFieldName, value: .string(id)) {
                // Held by a sync up's record: claimed. A sync down's clean copy (it has a sync id) may be our lost create.
                guard let entry = try await store.retrieve([holder], from: soup).first,
                    SyncUpRecord(record: entry, idFieldName: idFieldName, modificationDateFieldName: "").action == .none,
                    !(entry[LocalFields.local]?.boolValue ?? false), entry[LocalFields.syncId]?.int64Value != nil
                else { continue }
                copy = holder
            }
            candidates.append(Candidate(record: record, id: id, created: created, copy: copy))
        }
        return candidates
    }

    /// Stamps the records `isCreate` selects with an attempt (the server's time now and the
    /// fields `fields` sends), in the store, before they are sent; returns `records` stamped.
    /// Without a field list nothing is sent, so nothing is stamped.
    func stamp(_ records: [JSONValue], where isCreate: (JSONValue) -> Bool, fields: [String]?) async throws -> [JSONValue] {
        guard let fields, records.contains(where: isCreate) else { return records }
        let now = try await clock.now()
        var result = records
        var stamps: [Int64: JSONValue] = [:]
        for (index, record) in records.enumerated() where isCreate(record) {
            guard let id = record["_soupEntryId"]?.int64Value else { continue }
            let sent = SyncUpRecord(record: record, idFieldName: idFieldName, modificationDateFieldName: modificationDateFieldName).fields(
                fields)
            // Sent again after no match: the window keeps reaching back to the first attempt,
            // in case that one still commits late.
            let attempt = CreateAttempt(notBefore: min(now, CreateAttempt(record)?.notBefore ?? now), lastSent: now, sent: sent).json
            result[index][LocalFields.createAttempt] = attempt
            stamps[id] = attempt
        }
        try await store.setField(LocalFields.createAttempt, values: stamps, in: soup)
        return result
    }

    /// Marks the attempts of `records` (as stamped before a request that the API answered with
    /// an error of its own) as ended: that request cannot land later, so a create of them found
    /// missing is sent again at once.
    static func markEnded(_ records: [JSONValue], soup: String, in store: SmartStore) async throws {
        var stamps: [Int64: JSONValue] = [:]
        for record in records {
            guard let entryId = record["_soupEntryId"]?.int64Value, var attempt = CreateAttempt(record) else { continue }
            attempt.ended = true
            stamps[entryId] = attempt.json
        }
        if !stamps.isEmpty { try await store.setField(LocalFields.createAttempt, values: stamps, in: soup) }
    }

    /// The `__last_error__` of a record held back: its create may have been sent at `sent` (its
    /// batch was stamped then) and not landed yet; sent again from `until` on (server times,
    /// epoch ms) unless it lands by then.
    static func pendingError(sent: Int64, until: Int64) -> JSONValue {
        let message =
            "A create of this record may have gone out at \(SalesforceTime.format(sent, zulu: true)) and its answer was lost; the "
            + "server holds no such record yet, but that request may still be running there. A sync up from "
            + "\(SalesforceTime.format(until, zulu: true)) on adopts it if it landed, or sends it again "
            + "(SyncManager.resolveCreateAttempt with adopting nil sends it again at once)."
        return .string(JSONValue.array([SalesforceErrorItem(code: pendingCode, message: message).json]).jsonString)
    }

    /// The `__last_error__` of a record whose create outcome cannot be told: `CREATE_OUTCOME_UNKNOWN`,
    /// saying why and how to settle it.
    static func failure(_ reason: String) -> JSONValue {
        let message =
            "A create of this record was sent but its outcome is unknown. \(reason) "
            + "Settle it with SyncManager.resolveCreateAttempt: adopt the server record that is this one, or create it again."
        return .string(JSONValue.array([SalesforceErrorItem(code: errorCode, message: message).json]).jsonString)
    }
}
