import FastJSON
import SalesforceWire

/// How a record-at-a-time target sends one change (single REST calls or composite subrequests).
struct RecordChange {
    enum Kind {
        case create
        case upsert(field: String, value: String)
        case update, delete
    }
    var kind: Kind
    var objectType: String
    var id: String?
    var fields: [String: JSONValue]
    /// For LEAVE_IF_CHANGED updates: refuse if the server record changed after this (ms).
    var unmodifiedSince: Int64?
}

/// The SDK's action table for record-at-a-time targets (``RecordSyncUpTarget``,
/// ``BatchSyncUpTarget``): per record, the change its flags ask for, then the outcome of the
/// server's answer. LEAVE_IF_CHANGED and MERGE_FIELDS updates are made conditional (`If-Unmodified-Since`)
/// instead of the SDK's read-then-write; deletes cannot be conditional in the REST API, so the
/// target's `isNewerThanServer` reads the server date first, and a change landing in between is
/// lost (documented).
struct RecordActions {
    let idFieldName: String
    let modificationDateFieldName: String
    let createFieldlist: [String]?
    let updateFieldlist: [String]?
    let externalIdFieldName: String?

    private func fields(_ specific: [String]?, _ options: SyncOptions) throws -> [String] {
        guard let list = specific ?? options.fieldlist else { throw SyncError.invalidTarget("No fields specified") }
        return list
    }

    /// One outcome per record, in order. `send` answers changes in order, one answer each.
    func outcomes(
        _ records: [JSONValue], options: SyncOptions, isNewerThanServer: (JSONValue) async throws -> Bool,
        send: ([RecordChange]) async throws -> [SyncUpResponse]
    ) async throws -> [SyncUpOutcome] {
        let items = records.map { SyncUpRecord(record: $0, idFieldName: idFieldName, modificationDateFieldName: modificationDateFieldName) }
        var outcomes = [SyncUpOutcome?](repeating: nil, count: items.count)
        let changes = try await plan(items, options: options, isNewerThanServer: isNewerThanServer, outcomes: &outcomes)
        let results = try await send(changes.map(\.1))
        let recreate = try settle(changes, results: results, items: items, options: options, outcomes: &outcomes)
        if !recreate.isEmpty {
            for ((index, _), result) in zip(recreate, try await send(recreate.map(\.1))) {
                outcomes[index] =
                    (200..<300).contains(result.status)
                    ? .synced(items[index].cleaned(id: result.body["id"]?.stringValue)) : Self.failure(result)
            }
        }
        return outcomes.map { $0 ?? .leftDirty(error: nil) }
    }

    /// The change each record's flags ask for, by position; a record settled without a call
    /// (a LEAVE_IF_CHANGED conflict, nothing to do, never on the server) gets its outcome instead.
    private func plan(
        _ items: [SyncUpRecord], options: SyncOptions, isNewerThanServer: (JSONValue) async throws -> Bool,
        outcomes: inout [SyncUpOutcome?]
    ) async throws -> [(Int, RecordChange)] {
        var changes: [(Int, RecordChange)] = []
        for (index, item) in items.enumerated() {
            let type = item.objectType ?? "null"
            if options.mergeMode == .leaveIfChanged, item.action == .update || item.action == .delete,
                try await !isNewerThanServer(item.record)
            {
                outcomes[index] = .conflict(item.action == .delete ? .deletedLocally : .changedOnBothSides)
                continue
            }
            switch item.action {
            case .none: outcomes[index] = .leftDirty(error: nil)
            case .deleteLocalOnly: outcomes[index] = .deleted
            case .delete:
                changes.append((index, RecordChange(kind: .delete, objectType: type, id: item.id, fields: [:])))
            case .create:
                let body = item.fields(try fields(createFieldlist, options))
                if let field = externalIdFieldName, let value = item.record[field]?.stringValue, !value.isEmpty,
                    !LocalFields.isLocalId(value)
                {
                    changes.append(
                        (index, RecordChange(kind: .upsert(field: field, value: value), objectType: type, id: nil, fields: body)))
                } else {
                    changes.append((index, RecordChange(kind: .create, objectType: type, id: nil, fields: body)))
                }
            case .update:
                let since = options.mergeMode != .overwrite ? item.lastModified : nil
                let body = item.fields(try fields(updateFieldlist, options))
                changes.append((index, RecordChange(kind: .update, objectType: type, id: item.id, fields: body, unmodifiedSince: since)))
            }
        }
        return changes
    }

    /// The outcome of each change from its answer; returns the updates OVERWRITE creates again
    /// (deleted on the server), whose outcomes are left unset.
    private func settle(
        _ changes: [(Int, RecordChange)], results: [SyncUpResponse], items: [SyncUpRecord], options: SyncOptions,
        outcomes: inout [SyncUpOutcome?]
    ) throws -> [(Int, RecordChange)] {
        var recreate: [(Int, RecordChange)] = []
        for ((index, change), result) in zip(changes, results) {
            let item = items[index]
            switch (change.kind, result.status) {
            case (.delete, 200..<300), (.delete, 404):
                outcomes[index] = .deleted
            case (.update, 412):
                outcomes[index] = .conflict(.changedOnBothSides) // changed on the server since
            case (.update, 404) where options.mergeMode == .overwrite:
                let body = item.fields(try fields(createFieldlist ?? updateFieldlist, options))
                recreate.append((index, RecordChange(kind: .create, objectType: change.objectType, id: nil, fields: body)))
            case (.update, 404):
                outcomes[index] = .conflict(.deletedOnServer)
            case (_, 200..<300):
                outcomes[index] = .synced(item.cleaned(id: result.body["id"]?.stringValue))
            default:
                outcomes[index] = Self.failure(result)
            }
        }
        return recreate
    }

    /// A refusal: left dirty with Salesforce's errors, or unknown when the answer did not come
    /// from the API.
    private static func failure(_ result: SyncUpResponse) -> SyncUpOutcome {
        result.outcomeIsUnknown ? .outcomeUnknown(error: result.unknownOutcomeError) : .leftDirty(error: errors(result.body))
    }

    /// The Salesforce error items of a body, as stored in `__last_error__`.
    private static func errors(_ body: JSONValue) -> JSONValue {
        .array((body.arrayValue ?? []).compactMap(SalesforceErrorItem.init).map(\.json))
    }
}
