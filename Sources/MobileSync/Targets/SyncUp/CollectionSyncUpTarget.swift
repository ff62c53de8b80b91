public import FastJSON
public import SalesforceREST
import SalesforceWire

/// Sync up through sObject Collections: up to 200 records per request, creates, updates,
/// upserts and deletes each in one call (the SDK's default target since 10.1).
///
/// `LEAVE_IF_CHANGED` compares each record's local `LastModifiedDate` with the server's (one
/// collection retrieve per type); records changed on the server since are left dirty, as
/// conflicts. The check and the write are two calls: a change landing between them is
/// overwritten (the SDK has the same window; Collections accept no `If-Unmodified-Since`).
/// MERGE_FIELDS sends only the fields changed locally, so that window only reaches a field
/// changed on both sides.
public struct CollectionSyncUpTarget: SoupSyncUpTarget {
    /// The fields sent on create; nil: the sync options' field list.
    public var createFieldlist: [String]?
    /// The fields sent on update; nil: the sync options' field list.
    public var updateFieldlist: [String]?
    /// When set, created records whose value here is a real (non-local) id are upserted by it.
    public var externalIdFieldName: String?
    /// An external-id field on the server that receives each created record's local id. Creates
    /// then become upserts by that field: repeating one (after a lost response, a crash, a
    /// retry) finds the record made the first time instead of creating a duplicate.
    public var idempotencyFieldName: String?
    /// The field holding a record's server id (`Id`).
    public var idFieldName: String
    /// The field holding the record's modification date as synced down, compared in LEAVE_IF_CHANGED mode.
    public var modificationDateFieldName: String
    /// Records per request (1…200, the collections limit).
    public var maxBatchSize: Int

    /// A collection target; `maxBatchSize` is clamped to 1…200, the field lists default to the sync options'
    /// `fieldlist`.
    public init(
        createFieldlist: [String]? = nil, updateFieldlist: [String]? = nil, externalIdFieldName: String? = nil,
        idempotencyFieldName: String? = nil, idFieldName: String = "Id", modificationDateFieldName: String = "LastModifiedDate",
        maxBatchSize: Int = 200
    ) {
        self.idempotencyFieldName = idempotencyFieldName
        self.createFieldlist = createFieldlist
        self.updateFieldlist = updateFieldlist
        self.externalIdFieldName = externalIdFieldName
        self.idFieldName = idFieldName
        self.modificationDateFieldName = modificationDateFieldName
        self.maxBatchSize = min(200, max(1, maxBatchSize))
    }

    init(json: JSONValue) {
        self.init(
            createFieldlist: json["createFieldlist"]?.arrayValue?.compactMap(\.stringValue),
            updateFieldlist: json["updateFieldlist"]?.arrayValue?.compactMap(\.stringValue),
            externalIdFieldName: json["externalIdFieldName"]?.stringValue,
            idempotencyFieldName: json["idempotencyFieldName"]?.stringValue,
            idFieldName: json["idFieldName"]?.stringValue ?? "Id",
            modificationDateFieldName: json["modificationDateFieldName"]?.stringValue ?? "LastModifiedDate",
            maxBatchSize: json["maxBatchSize"]?.int64Value.map { Int(clamping: $0) } ?? 200)
    }

    /// `{"type": "collection", "maxBatchSize": N}` with the field lists and names (the default for SDK files without an
    /// impl).
    public var json: JSONValue {
        var json: [String: JSONValue] = [
            "type": "collection", "idFieldName": .string(idFieldName),
            "modificationDateFieldName": .string(modificationDateFieldName), "maxBatchSize": .int(Int64(maxBatchSize)),
        ]
        if let createFieldlist { json["createFieldlist"] = .array(createFieldlist.map(JSONValue.string)) }
        if let updateFieldlist { json["updateFieldlist"] = .array(updateFieldlist.map(JSONValue.string)) }
        if let externalIdFieldName { json["externalIdFieldName"] = .string(externalIdFieldName) }
        if let idempotencyFieldName { json["idempotencyFieldName"] = .string(idempotencyFieldName) }
        return .object(json)
    }

    /// true with an ``idempotencyFieldName``: creates are upserts by it, so no reconciliation is needed.
    public var createsAreIdempotent: Bool { idempotencyFieldName != nil }

    /// The create field list, else the options' field list.
    public func createFields(options: SyncOptions) -> [String]? { createFieldlist ?? options.fieldlist }
    /// The update field list, else the options' field list.
    public func updateFields(options: SyncOptions) -> [String]? { updateFieldlist ?? options.fieldlist }

    private func fieldlist(_ specific: [String]?, _ options: SyncOptions) throws -> [String] {
        guard let list = specific ?? options.fieldlist else { throw SyncError.invalidTarget("No fields specified") }
        return list
    }

    /// Sends a batch: creates, updates, upserts and deletes each in one collections call, after the LEAVE_IF_CHANGED
    /// date check.
    public func send(_ records: [JSONValue], options: SyncOptions, client: RestClient) async throws -> [SyncUpOutcome] {
        let items = records.map { SyncUpRecord(record: $0, idFieldName: idFieldName, modificationDateFieldName: modificationDateFieldName) }
        var serverDates: [String: Int64?] = [:]
        if options.mergeMode == .leaveIfChanged {
            serverDates = try await serverModificationDates(items.filter { $0.action == .update || $0.action == .delete }, client: client)
        }
        var plan = BatchPlan(items, options: options, serverDates: serverDates, externalIdFieldName: externalIdFieldName)
        let createList = try plan.creates.isEmpty && plan.upserts.isEmpty ? [] : fieldlist(createFieldlist, options)
        let updateList = try plan.updates.isEmpty ? [] : fieldlist(updateFieldlist, options)
        if let field = idempotencyFieldName, !plan.creates.isEmpty {
            try await upsert(
                plan.creates, by: field, value: { items[$0].id }, fields: createList, items: items, client: client, into: &plan.outcomes)
        } else if !plan.creates.isEmpty {
            try await create(plan.creates, fields: createList, items: items, client: client, into: &plan.outcomes)
        }
        let recreate = try await update(
            plan.updates, fields: updateList, items: items, options: options, client: client, into: &plan.outcomes)
        if !recreate.isEmpty {
            // Deleted on the server, changed here, OVERWRITE: create it again (new id).
            let list = try fieldlist(createFieldlist ?? updateFieldlist, options)
            try await create(recreate, fields: list, items: items, client: client, into: &plan.outcomes)
        }
        if let field = externalIdFieldName, !plan.upserts.isEmpty {
            try await upsert(
                plan.upserts, by: field, value: { items[$0].record[field]?.stringValue }, fields: createList, items: items,
                client: client, into: &plan.outcomes)
        }
        try await delete(plan.deletes, items: items, client: client, into: &plan.outcomes)
        return plan.outcomes.map { $0 ?? .leftDirty(error: nil) }
    }

    /// Which call each record of a batch goes in (by index), and the outcomes known before any call.
    private struct BatchPlan {
        var outcomes: [SyncUpOutcome?]
        var creates: [Int] = []
        var updates: [Int] = []
        var deletes: [Int] = []
        var upserts: [Int] = []

        /// Sorts the records; in LEAVE_IF_CHANGED mode, one changed or deleted on the server since
        /// it was synced down is a conflict, left alone.
        init(_ items: [SyncUpRecord], options: SyncOptions, serverDates: [String: Int64?], externalIdFieldName: String?) {
            outcomes = [SyncUpOutcome?](repeating: nil, count: items.count)
            for (index, item) in items.enumerated() {
                switch item.action {
                case .none: outcomes[index] = .leftDirty(error: nil)
                case .deleteLocalOnly: outcomes[index] = .deleted
                case .create:
                    if let field = externalIdFieldName, let value = item.record[field]?.stringValue, !value.isEmpty,
                        !LocalFields.isLocalId(value)
                    {
                        upserts.append(index)
                    } else {
                        creates.append(index)
                    }
                case .update, .delete:
                    if options.mergeMode == .leaveIfChanged, let id = item.id, let server = serverDates[id] {
                        if let server, let local = item.lastModified, server > local {
                            outcomes[index] = .conflict(item.action == .delete ? .deletedLocally : .changedOnBothSides)
                            continue
                        }
                        if server == nil && item.action == .update { // deleted on the server
                            outcomes[index] = .conflict(.deletedOnServer)
                            continue
                        }
                    }
                    if item.action == .update { updates.append(index) } else { deletes.append(index) }
                }
            }
        }
    }

    /// Creates records (one collections call); each gets its new id.
    private func create(
        _ indexes: [Int], fields list: [String], items: [SyncUpRecord], client: RestClient, into outcomes: inout [SyncUpOutcome?]
    ) async throws {
        let bodies = indexes.map { index in body(items[index], fields: list, includeId: false) }
        for (index, result) in zip(indexes, try await client.createRecords(bodies)) {
            outcomes[index] = outcome(items[index], result, newId: result.id)
        }
    }

    /// Updates records (one collections call); returns those the server no longer has that
    /// OVERWRITE creates again (in LEAVE_IF_CHANGED they are conflicts).
    private func update(
        _ indexes: [Int], fields list: [String], items: [SyncUpRecord], options: SyncOptions, client: RestClient,
        into outcomes: inout [SyncUpOutcome?]
    ) async throws -> [Int] {
        guard !indexes.isEmpty else { return [] }
        var recreate: [Int] = []
        let bodies = indexes.map { index in body(items[index], fields: list, includeId: true) }
        for (index, result) in zip(indexes, try await client.updateRecords(bodies)) {
            if !result.success, result.errors.first?.meansRecordDoesNotExist == true {
                if options.mergeMode == .overwrite { recreate.append(index) } else { outcomes[index] = .conflict(.deletedOnServer) }
                continue
            }
            outcomes[index] = outcome(items[index], result, newId: nil)
        }
        return recreate
    }

    /// Deletes records (one collections call); one the server no longer has counts as deleted.
    private func delete(_ indexes: [Int], items: [SyncUpRecord], client: RestClient, into outcomes: inout [SyncUpOutcome?]) async throws {
        guard !indexes.isEmpty else { return }
        // Every delete has a server id (see SyncUpRecord.action); pairs keep results aligned regardless.
        let sent = indexes.compactMap { index in items[index].id.map { (index, $0) } }
        for ((index, _), result) in zip(sent, try await client.deleteRecords(sent.map(\.1))) {
            if result.success || result.errors.first?.meansRecordDoesNotExist == true {
                outcomes[index] = .deleted
            } else {
                outcomes[index] = .leftDirty(error: .array(result.errors.map(\.json)))
            }
        }
    }

    /// Upserts records (grouped by type) by an external-id field whose value `value` gives.
    private func upsert(
        _ indexes: [Int], by field: String, value: (Int) -> String?, fields list: [String], items: [SyncUpRecord],
        client: RestClient, into outcomes: inout [SyncUpOutcome?]
    ) async throws {
        for (type, group) in Dictionary(grouping: indexes, by: { items[$0].objectType ?? "" }) {
            let bodies = group.map { index -> JSONValue in
                var fields = items[index].fields(list)
                fields[field] = value(index).map(JSONValue.string) ?? .null
                fields["attributes"] = ["type": .string(type)]
                return .object(fields)
            }
            for (index, result) in zip(group, try await client.upsertRecords(type, externalIdField: field, records: bodies)) {
                outcomes[index] = outcome(items[index], result, newId: result.id)
            }
        }
    }

    private func body(_ item: SyncUpRecord, fields list: [String], includeId: Bool) -> JSONValue {
        var fields = item.fields(list)
        if includeId, let id = item.id { fields[idFieldName] = .string(id) }
        if let type = item.objectType { fields["attributes"] = ["type": .string(type)] }
        return .object(fields)
    }

    private func outcome(_ item: SyncUpRecord, _ result: SaveResult, newId: String?) -> SyncUpOutcome {
        guard result.success else { return .leftDirty(error: .array(result.errors.map(\.json))) }
        return .synced(item.cleaned(id: newId))
    }

    /// Server `LastModifiedDate`s (nil inside: deleted on the server) of records with server ids.
    private func serverModificationDates(_ items: [SyncUpRecord], client: RestClient) async throws -> [String: Int64?] {
        var dates: [String: Int64?] = [:]
        let byType = Dictionary(grouping: items.filter { !LocalFields.isLocalId($0.id) && $0.id != nil }) { $0.objectType ?? "" }
        for (type, group) in byType where !type.isEmpty {
            let ids = group.compactMap(\.id)
            for start in stride(from: 0, to: ids.count, by: 2000) {
                let slice = Array(ids[start..<min(ids.count, start + 2000)])
                let records = try await client.retrieveRecords(type, ids: slice, fields: [idFieldName, modificationDateFieldName])
                for (id, record) in zip(slice, records) {
                    // `.some(nil)`: deleted on the server (an explicit entry, not a missing key).
                    dates[id] = .some(record?[modificationDateFieldName]?.stringValue.flatMap(SalesforceTime.parse))
                }
            }
        }
        return dates
    }
}
