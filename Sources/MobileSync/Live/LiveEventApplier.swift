import FastJSON
import Locking
import SalesforceStreaming
import SmartStore

/// Brings a live sync's soup up to date with a batch of change events: each applied from the
/// event itself where it can be, in order, in as few store writes as possible; the rest is
/// left to one resync (bursts coalesce). A dirty local record is never overwritten by an event.
struct LiveEventApplier: Sendable {
    let store: SmartStore
    let sync: SyncState
    let shape: LiveQueryShape
    let idField: String
    let modificationDateField: String
    let apiVersion: String

    struct Outcome {
        var changes: [LiveChange] = []
        var needsResync = false
        /// A gap or overflow event may hide deletes, which a resync does not bring.
        var needsGhostCleanup = false
        var applied: Int { changes.filter { $0.outcome == .applied }.count }
        var skippedDirty: Int { changes.filter { $0.outcome == .skippedDirty }.count }
        /// The records whose changes were skipped because they were dirty.
        var skippedIds: [String] { changes.filter { $0.outcome == .skippedDirty }.flatMap(\.recordIds) }
    }

    private enum Pending {
        case upsert(JSONValue)
        case delete
    }

    /// Bookkeeping a record read from the soup carries, never sent back into it as data.
    private static let bookkeeping: Set<String> = [
        "_soupEntryId", "_soupLastModifiedDate", LocalFields.local, LocalFields.locallyCreated, LocalFields.locallyUpdated,
        LocalFields.locallyDeleted, LocalFields.syncId, LocalFields.lastError,
    ]

    func apply(_ events: [StreamingEvent], context: SyncContext) async throws -> Outcome {
        var run = Run(syncName: sync.name ?? String(sync.id))
        for event in events {
            guard var change = event.change, change.entityName.lowercased() == shape.objectName.lowercased() else { continue }
            guard let flat = Self.flattened(change.fields) else {
                run.note(change, .resynced, event) // a nested value this applier does not know
                continue
            }
            change.fields = flat
            change.changedFields = change.changedFields.map(Self.flattenedName)
            try await take(change, of: event, into: &run)
        }
        let (upserts, deletes) = run.writes()
        if !upserts.isEmpty { try await save(upserts, context: context) }
        var outcome = run.outcome
        if !deletes.isEmpty { outcome.changes = try await delete(deletes, noting: outcome.changes) }
        return outcome
    }

    /// What one call to ``apply(_:context:)`` gathers: the changes noted, and each record's last
    /// pending write with the order records were first written in.
    private struct Run {
        let syncName: String
        var outcome = Outcome()
        var pending: [String: Pending] = [:]
        var order: [String] = []

        /// Notes an event's change (for `ids`, else all its records) with its result.
        mutating func note(_ change: ChangeEvent, _ result: LiveChange.Outcome, _ event: StreamingEvent, ids: [String]? = nil) {
            outcome.changes.append(
                LiveChange(
                    syncName: syncName, changeType: change.changeType.rawValue, recordIds: ids ?? change.recordIds,
                    changedFields: change.changedFields, outcome: result, replayId: event.replayId))
            if result == .resynced { outcome.needsResync = true }
        }

        /// Makes `value` the pending write of the record `id`.
        mutating func set(_ id: String, _ value: Pending) {
            if pending[id] == nil { order.append(id) }
            pending[id] = value
        }

        /// The pending writes, in order: the data of the records to upsert and the ids to delete.
        func writes() -> (upserts: [JSONValue], deletes: [String]) {
            var upserts: [JSONValue] = []
            var deletes: [String] = []
            for id in order {
                switch pending[id] {
                case .upsert(let record)?: upserts.append(LiveEventApplier.data(of: record))
                case .delete?: deletes.append(id)
                case nil: break
                }
            }
            return (upserts, deletes)
        }
    }

    /// Applies one change event (of the sync's object, its fields flat) to the run: pending
    /// writes for what it can apply itself, a note of each result.
    private func take(_ change: ChangeEvent, of event: StreamingEvent, into run: inout Run) async throws {
        switch change.changeType {
        case .create, .undelete:
            guard let fields = shape.fields, shape.takesEveryRecord else {
                run.note(change, .resynced, event)
                return
            }
            for id in change.recordIds { run.set(id, .upsert(record(id: id, fields: fields, values: change.fields))) }
            run.note(change, .applied, event)
        case .update:
            guard let fields = shape.fields else {
                run.note(change, .resynced, event)
                return
            }
            try await takeUpdate(change, of: event, fields: fields, into: &run)
        case .delete:
            for id in change.recordIds { run.set(id, .delete) }
            run.note(change, .applied, event)
        case .gapCreate, .gapUpdate, .gapDelete, .gapUndelete, .gapOverflow:
            run.note(change, .resynced, event)
            if change.changeType == .gapDelete || change.changeType == .gapOverflow { run.outcome.needsGhostCleanup = true }
        }
    }

    /// Applies an update event's `fields` to each of its records as held (pending in the run,
    /// else in the soup); one not held, or dirty, is noted and left alone.
    private func takeUpdate(_ change: ChangeEvent, of event: StreamingEvent, fields: [String], into run: inout Run) async throws {
        for id in change.recordIds {
            let base: JSONValue?
            switch run.pending[id] {
            case .upsert(let record)?: base = record
            case .delete?: base = nil
            case nil: base = try await localRecord(id)
            }
            guard let base else {
                // Not held locally: it may match the query now.
                run.note(change, .resynced, event, ids: [id])
                continue
            }
            if LocalFields.isDirty(base) {
                run.note(change, .skippedDirty, event, ids: [id])
                continue
            }
            var merged = base
            let wanted = Set(fields.map { $0.lowercased() } + [modificationDateField.lowercased()])
            for (field, value) in change.fields where wanted.contains(field.lowercased()) {
                let key = fields.first { $0.lowercased() == field.lowercased() } ?? field
                merged[key] = value
            }
            run.set(id, .upsert(merged))
            run.note(change, .applied, event, ids: [id])
        }
    }

    /// Writes the records the events brought: merged with local changes in MERGE_FIELDS, else as
    /// one page that leaves dirty records alone.
    private func save(_ upserts: [JSONValue], context: SyncContext) async throws {
        if sync.options.mergeMode == .mergeFields {
            _ = try await context.saveRecords(
                upserts, in: sync.soupName, idFieldName: idField, modificationDateFieldName: modificationDateField, for: sync)
        } else {
            _ = try await store.ingestPage(
                JSONValue.array(upserts).jsonBytes, into: sync.soupName, recordsPath: "", idPath: idField,
                timestampPath: modificationDateField, skipDirty: true, keepNewer: true, setFields: LocalFields.clean(syncId: sync.id),
                removeFields: LocalFields.ownedFields)
        }
    }

    /// A created record from its event: every selected field, absent ones null (a create's event leaves nulls out).
    private func record(id: String, fields: [String], values: [String: JSONValue]) -> JSONValue {
        let lowered = Dictionary(values.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        var record: [String: JSONValue] = [
            "attributes": [
                "type": .string(shape.objectName), "url": .string("/services/data/v\(apiVersion)/sobjects/\(shape.objectName)/\(id)"),
            ]
        ]
        for field in fields { record[field] = lowered[field.lowercased()] ?? .null }
        record[idField] = .string(id)
        if let date = lowered[modificationDateField.lowercased()] { record[modificationDateField] = date }
        return .object(record)
    }

    /// Salesforce sends compound fields nested: `"Name": {"FirstName": …, "LastName": …}`
    /// (contacts, leads) and `"BillingAddress": {"City": …}`; records hold them flat
    /// (`FirstName`, `BillingCity`). `nil` for another nested value.
    static func flattened(_ fields: [String: JSONValue]) -> [String: JSONValue]? {
        var flat: [String: JSONValue] = [:]
        for (name, value) in fields {
            guard case .object(let parts) = value else {
                flat[name] = value
                continue
            }
            if name == "Name" {
                for (part, partValue) in parts { flat[part] = partValue }
            } else if name.hasSuffix("Address") {
                let prefix = String(name.dropLast("Address".count))
                for (part, partValue) in parts { flat[prefix + part] = partValue }
            } else {
                return nil
            }
        }
        return flat
    }

    /// `Name.LastName` → `LastName`, `BillingAddress.City` → `BillingCity`.
    static func flattenedName(_ name: String) -> String {
        let parts = name.split(separator: ".", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return name }
        if parts[0] == "Name" { return parts[1] }
        if parts[0].hasSuffix("Address") { return String(parts[0].dropLast("Address".count)) + parts[1] }
        return name
    }

    private func localRecord(_ id: String) async throws -> JSONValue? {
        try await store.query(.exact(soup: sync.soupName, path: idField, key: .string(id), pageSize: 1)).first
    }

    private static func data(of record: JSONValue) -> JSONValue {
        guard case .object(let members) = record else { return record }
        return .object(members.filter { !bookkeeping.contains($0.key) })
    }

    /// Deletes the clean local records of these ids; a dirty one stays (its change is the
    /// next sync up's), and its change is noted as skipped.
    private func delete(_ ids: [String], noting changes: [LiveChange]) async throws -> [LiveChange] {
        var entries: [Int64] = []
        for id in ids {
            for entry in try await store.query(.exact(soup: sync.soupName, path: idField, key: .string(id), pageSize: 10)) {
                if let entryId = entry["_soupEntryId"]?.int64Value { entries.append(entryId) }
            }
        }
        let kept = Locked<Set<String>>([])
        let idField = self.idField
        try await store.modify(entries, in: sync.soupName) { entry in
            guard let record = entry else { return }
            if LocalFields.isDirty(record) {
                if let id = record[idField]?.stringValue { kept.withLock { _ = $0.insert(id) } }
            } else {
                entry = nil
            }
        }
        let skipped = kept.withLock { $0 }
        guard !skipped.isEmpty else { return changes }
        return changes.map { change in
            guard change.changeType == "DELETE", change.recordIds.contains(where: skipped.contains) else { return change }
            var change = change
            change.outcome = .skippedDirty
            return change
        }
    }
}
