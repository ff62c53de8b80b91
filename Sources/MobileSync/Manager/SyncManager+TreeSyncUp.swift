import FastJSON
import Foundation
import SalesforceREST
import SalesforceWire
import SmartStore

/// Parent/children sync ups: see ``ParentChildrenSyncUpTarget`` for the rules.
extension SyncManager {
    func runParentChildrenSyncUp(_ sync: inout SyncState, target: ParentChildrenSyncUpTarget, onUpdate: (@Sendable (SyncState) -> Void)?)
        async throws
    {
        let (parent, children) = (target.parent, target.children)
        for soup in [parent.soupName, children.soupName] where try !store.hasSoup(soup) { throw SmartStoreError.unknownSoup(soup) }
        let parentIds = try dirtyParentIds(parent: parent, children: children).sorted()
        sync.totalSize = parentIds.count
        try save(&sync, onUpdate: onUpdate)
        for (index, parentId) in parentIds.enumerated() {
            try checkStop()
            guard let tree = try loadTree(parentId, target: target) else { continue }
            sync.failedRecordCount += try await syncTree(tree.parent, tree.children, target: target, options: sync.options, pass: 1)
            if index + 1 < parentIds.count {
                sync.progress = (index + 1) * 100 / parentIds.count
                try save(&sync, onUpdate: onUpdate)
            }
        }
    }

    private func loadTree(_ parentId: String, target: ParentChildrenSyncUpTarget) throws -> (parent: JSONValue, children: [JSONValue])? {
        let (parent, children) = (target.parent, target.children)
        func entries(_ soup: String, _ field: String) throws -> [JSONValue] {
            try store.query(
                .smart(
                    "select {\(soup):_soup} from {\(soup)} where {\(soup):\(field)} = ? order by {\(soup):_soupEntryId}", pageSize: 100_000),
                arguments: [.string(parentId)]
            ).compactMap { $0.arrayValue?.first }
        }
        guard let entry = try entries(parent.soupName, parent.idFieldName).first else { return nil }
        return (entry, try entries(children.soupName, children.parentIdFieldName))
    }

    /// One tree, one composite request (more when OVERWRITE must recreate what the server lost:
    /// a child first, then its parent, at most three passes). Returns how many records failed.
    private func syncTree(
        _ parentEntry: JSONValue, _ childEntries: [JSONValue], target: ParentChildrenSyncUpTarget,
        options: SyncOptions, pass: Int
    ) async throws -> Int {
        let retried = pass >= 3
        let (info, childInfo) = (target.parent, target.children)
        let leaveIfChanged = options.mergeMode == .leaveIfChanged
        let parent = SyncUpRecord(
            record: parentEntry, idFieldName: info.idFieldName, modificationDateFieldName: info.modificationDateFieldName)
        let kids = childEntries.map {
            SyncUpRecord(record: $0, idFieldName: childInfo.idFieldName, modificationDateFieldName: childInfo.modificationDateFieldName)
        }
        let childIds = childEntries.compactMap { $0["_soupEntryId"]?.int64Value }
        // Entries read from a soup always carry their id; positions below pair kids with ids.
        guard childIds.count == childEntries.count else {
            throw SyncError.invalidSyncState("a child entry of soup \(childInfo.soupName) has no _soupEntryId")
        }
        let parentEntryId = parentEntry["_soupEntryId"]?.int64Value ?? -1
        if parent.action == .deleteLocalOnly {
            // Never on the server: the parent and the children made for it go locally.
            try store.delete([parentEntryId], from: info.soupName)
            try store.delete(childIds, from: childInfo.soupName)
            return 0
        }
        // Records the check found deleted on the server (and deleted locally): no request for them.
        var knownGone: Set<String> = []
        if leaveIfChanged, parent.action != .create {
            guard let missing = try await treeIsUnchangedOnServer(parent, kids, target: target) else { return 0 }
            knownGone = missing
        }

        let cascade = target.relationshipType == .masterDetail && parent.action == .delete
        let parentServerId = LocalFields.isLocalId(parent.id) ? nil : parent.id
        let base = "/services/data/v\(client.apiVersion)/sobjects/"
        var subrequests: [CompositeSubrequest] = []
        func request(_ reference: String, _ method: String, _ url: String, body: [String: JSONValue]? = nil, since: Int64? = nil) {
            var request = CompositeSubrequest(referenceId: reference, method: method, url: url, body: body.map(JSONValue.object))
            if leaveIfChanged { request.unmodifiedSince = since }
            subrequests.append(request)
        }
        /// A create, or an upsert by the external id when the record carries a real one.
        func create(_ reference: String, _ url: String, _ record: SyncUpRecord, externalIdField: String?, body: [String: JSONValue]) {
            guard let field = externalIdField, let value = record.record[field]?.stringValue, !value.isEmpty, !LocalFields.isLocalId(value)
            else {
                return request(reference, "POST", url, body: body)
            }
            request(
                reference, "PATCH", url + "/\(RestClient.encodeSegment(field))/\(RestClient.encodeSegment(value))",
                body: body.filter { $0.key != field })
        }
        let parentURL = base + RestClient.encodeSegment(info.objectType)
        switch parent.action {
        case .create:
            create(
                "parent", parentURL, parent, externalIdField: info.externalIdFieldName,
                body: try target.fields(parent, creating: true, isChild: false, options: options))
        case .update:
            request(
                "parent", "PATCH", parentURL + "/\(parentServerId ?? "")",
                body: try target.fields(parent, creating: false, isChild: false, options: options),
                since: parent.lastModified)
        default: break
        }
        let parentReference: JSONValue = parent.action == .create ? "@{parent.id}" : parentServerId.map(JSONValue.string) ?? .null
        let childURL = base + RestClient.encodeSegment(childInfo.objectType)
        var localOnlyDeletes: [Int64] = []
        var handledLocally: Set<Int> = []
        if !cascade {
            for (index, kid) in kids.enumerated() {
                switch kid.action {
                case .create:
                    var body = try target.fields(kid, creating: true, isChild: true, options: options)
                    body[childInfo.parentIdFieldName] = parentReference
                    create("child\(index)", childURL, kid, externalIdField: childInfo.externalIdFieldName, body: body)
                case .update:
                    var body = try target.fields(kid, creating: false, isChild: true, options: options)
                    if parent.action == .create { body[childInfo.parentIdFieldName] = parentReference }
                    request("child\(index)", "PATCH", childURL + "/\(kid.id ?? "")", body: body, since: kid.lastModified)
                case .delete where knownGone.contains(kid.id ?? ""):
                    localOnlyDeletes.append(childIds[index])
                    handledLocally.insert(index)
                case .delete:
                    request("child\(index)", "DELETE", childURL + "/\(kid.id ?? "")")
                case .deleteLocalOnly:
                    localOnlyDeletes.append(childIds[index])
                    handledLocally.insert(index)
                case .none:
                    continue
                }
            }
        }
        let parentKnownGone = parent.action == .delete && knownGone.contains(parentServerId ?? "")
        if parent.action == .delete && !parentKnownGone { request("parent", "DELETE", parentURL + "/\(parentServerId ?? "")") }
        try store.delete(localOnlyDeletes, from: childInfo.soupName)
        if parentKnownGone {
            try store.delete([parentEntryId], from: info.soupName)
            if cascade { try store.delete(childIds, from: childInfo.soupName) }
        }
        guard !subrequests.isEmpty else { return 0 }

        let responses = try await sendTree(
            subrequests, parentCreated: parent.action == .create, parentIdField: childInfo.parentIdFieldName,
            allOrNone: leaveIfChanged)
        var outcomes: [String: (status: Int, body: JSONValue)] = [:]
        for response in responses { outcomes[response.referenceId] = (response.httpStatusCode, response.body) }
        func succeeded(_ reference: String) -> Bool { outcomes[reference].map { (200..<300).contains($0.status) } ?? false }
        func gone(_ reference: String) -> Bool {
            guard let outcome = outcomes[reference] else { return false }
            return outcome.status == 404 || errorItems(outcome.body).contains(where: \.meansRecordDoesNotExist)
        }
        // With LEAVE_IF_CHANGED a failed request was rolled back whole (412 when the tree changed
        // meanwhile); requests before it were committed, so every outcome is applied below.
        // Parent outcome.
        var effectiveParentId = parentServerId
        var recreateParent = false
        switch parent.action {
        case .create where succeeded("parent"):
            effectiveParentId = outcomes["parent"]?.body["id"]?.stringValue
            try store.upsert(parent.cleaned(id: effectiveParentId), in: info.soupName)
        case .update where succeeded("parent"):
            try store.upsert(parent.cleaned(id: nil), in: info.soupName)
        case .update where gone("parent") && !retried:
            recreateParent = true
        case .delete where succeeded("parent") || gone("parent") || parentKnownGone:
            try store.delete([parentEntryId], from: info.soupName)
            if target.relationshipType == .masterDetail { try store.delete(childIds, from: childInfo.soupName) }
        default: break
        }
        // Children outcomes.
        var failed = 0
        var recreateChildren: Set<Int> = []
        for (index, kid) in kids.enumerated() where !cascade && !handledLocally.contains(index) {
            let reference = "child\(index)"
            var cleaned = kid.cleaned(id: kid.action == .create ? outcomes[reference]?.body["id"]?.stringValue : nil)
            if let effectiveParentId, parent.action == .create || kid.action == .create {
                cleaned[childInfo.parentIdFieldName] = .string(effectiveParentId)
            }
            switch kid.action {
            case .create, .update:
                if succeeded(reference) {
                    try store.upsert(cleaned, in: childInfo.soupName)
                } else if options.mergeMode == .overwrite, !retried, kid.action == .update, gone(reference), !recreateParent {
                    recreateChildren.insert(index)
                } else if options.mergeMode == .overwrite, !retried, kid.action == .create, parent.action != .create, gone(reference),
                    errorItems(outcomes[reference]?.body ?? .null).contains(where: {
                        $0.fields.contains(childInfo.parentIdFieldName) || $0.code == "ENTITY_IS_DELETED"
                    })
                {
                    recreateParent = true // created under a parent the server no longer has
                } else if outcomes[reference] != nil, !recreateParent {
                    failed += try recordError(outcomes[reference]?.body, on: kid.record, soup: childInfo.soupName)
                }
            case .delete:
                if succeeded(reference) || gone(reference) {
                    try store.delete([childIds[index]], from: childInfo.soupName)
                } else {
                    failed += try recordError(outcomes[reference]?.body, on: kid.record, soup: childInfo.soupName)
                }
            case .none where parent.action == .create:
                if let effectiveParentId {
                    var repointed = kid.record
                    repointed[childInfo.parentIdFieldName] = .string(effectiveParentId)
                    try store.upsert(repointed, in: childInfo.soupName)
                }
            default: break
            }
        }
        if parent.action != .create, parent.action != .none, !parentKnownGone, !succeeded("parent"),
            !gone("parent") || (retried && parent.action == .update)
        {
            failed += try recordError(outcomes["parent"]?.body, on: parent.record, soup: info.soupName)
        }
        if parent.action == .create, !succeeded("parent") {
            failed += try recordError(outcomes["parent"]?.body, on: parent.record, soup: info.soupName)
        }
        if options.mergeMode == .overwrite, !retried, recreateParent || !recreateChildren.isEmpty {
            return failed
                + (try await recreate(
                    parentEntryId, parentAgain: recreateParent, children: recreateChildren, childIds: childIds,
                    target: target, options: options, pass: pass))
        }
        return failed
    }

    /// Sends a tree's subrequests, 25 per composite request (Salesforce's limit): the first
    /// request carries the parent; when it creates the parent, later requests name its new id
    /// instead of `@{parent.id}`. A tree of more than 25 changes is not atomic (each request
    /// is); a failed parent create or an all-or-none failure stops the rest.
    private func sendTree(_ subrequests: [CompositeSubrequest], parentCreated: Bool, parentIdField: String, allOrNone: Bool)
        async throws -> [CompositeSubresponse]
    {
        var responses: [CompositeSubresponse] = []
        var newParentId: String?
        for start in stride(from: 0, to: subrequests.count, by: 25) {
            var chunk = Array(subrequests[start..<min(subrequests.count, start + 25)])
            if let newParentId {
                chunk = chunk.map { request in
                    var request = request
                    if request.body?[parentIdField] == "@{parent.id}" { request.body?[parentIdField] = .string(newParentId) }
                    return request
                }
            }
            let part = try await client.composite(chunk, allOrNone: allOrNone)
            responses += part
            let failed = part.contains { !$0.isSuccess }
            if start == 0, parentCreated {
                guard let created = part.first(where: { $0.referenceId == "parent" }), created.isSuccess,
                    let id = created.body["id"]?.stringValue
                else { break }
                newParentId = id
            }
            if failed && allOrNone { break }
        }
        return responses
    }

    /// Marks what the server lost as locally created (new local ids, children re-pointed) and
    /// runs the tree once more.
    private func recreate(
        _ parentEntryId: Int64, parentAgain: Bool, children: Set<Int>, childIds: [Int64],
        target: ParentChildrenSyncUpTarget, options: SyncOptions, pass: Int
    ) async throws -> Int {
        let (info, childInfo) = (target.parent, target.children)
        var kids = try store.retrieve(childIds, from: childInfo.soupName)
        guard var parent = try store.retrieve([parentEntryId], from: info.soupName).first else {
            // The parent was deleted (LOOKUP): lost children come back on their own, without a parent.
            var failed = 0
            for index in children where index < kids.count {
                var kid = kids[index]
                kid[childInfo.parentIdFieldName] = .null
                let record = SyncUpRecord(
                    record: kid, idFieldName: childInfo.idFieldName, modificationDateFieldName: childInfo.modificationDateFieldName)
                var fields = try target.fields(record, creating: true, isChild: true, options: options)
                fields[childInfo.parentIdFieldName] = .null
                do {
                    let id = try await client.create(childInfo.objectType, fields: .object(fields))
                    try store.upsert(record.cleaned(id: id), in: childInfo.soupName)
                } catch RestError.http(_, let errors, _) {
                    failed += try recordError(.array(errors.map(\.json)), on: kid, soup: childInfo.soupName)
                }
            }
            return failed
        }
        if parentAgain {
            let localId = LocalFields.newLocalId()
            parent[info.idFieldName] = .string(localId)
            parent[LocalFields.local] = true
            parent[LocalFields.locallyCreated] = true
            for index in kids.indices {
                kids[index][childInfo.parentIdFieldName] = .string(localId)
                let deleted = kids[index][LocalFields.locallyDeleted] == true
                if target.relationshipType == .masterDetail && !deleted {
                    // The server deleted these with their parent.
                    kids[index][childInfo.idFieldName] = .string(LocalFields.newLocalId())
                    kids[index][LocalFields.locallyCreated] = true
                    kids[index][LocalFields.local] = true
                } else if !deleted {
                    kids[index][LocalFields.locallyUpdated] = true
                    kids[index][LocalFields.local] = true
                }
            }
        } else {
            for index in children where index < kids.count {
                kids[index][childInfo.parentIdFieldName] = parent[info.idFieldName]
                kids[index][childInfo.idFieldName] = .string(LocalFields.newLocalId())
                kids[index][LocalFields.locallyCreated] = true
                kids[index][LocalFields.local] = true
            }
        }
        let savedParent = try store.upsert(parent, in: info.soupName)
        let savedKids = try store.upsert(kids, in: childInfo.soupName)
        return try await syncTree(savedParent, savedKids, target: target, options: options, pass: pass + 1)
    }

    /// LEAVE_IF_CHANGED: whether no record of the tree changed on the server since it was synced
    /// down. A remote delete only matches a local delete — or, under a MASTER_DETAIL parent
    /// deleted locally, the cascade that delete brings anyway. Children created locally do not count.
    /// Returns nil when something changed, else the ids of records deleted on both sides.
    private func treeIsUnchangedOnServer(_ parent: SyncUpRecord, _ kids: [SyncUpRecord], target: ParentChildrenSyncUpTarget) async throws
        -> Set<String>?
    {
        let (info, childInfo) = (target.parent, target.children)
        guard let parentId = parent.id, !LocalFields.isLocalId(parentId) else { return [] }
        let parentDates = try await remoteDates(
            info.objectType, idField: info.idFieldName, dateField: info.modificationDateFieldName, ids: [parentId])
        let serverIds = kids.compactMap { kid in kid.id.flatMap { LocalFields.isLocalId($0) || kid.action == .deleteLocalOnly ? nil : $0 } }
        let childDates = try await remoteDates(
            childInfo.objectType, idField: childInfo.idFieldName, dateField: childInfo.modificationDateFieldName, ids: serverIds)
        let cascading = target.relationshipType == .masterDetail && parent.action == .delete
        func unchanged(_ local: SyncUpRecord, _ remote: Int64??, deletedWithParent: Bool) -> Bool {
            guard let remote else { return local.action == .delete || deletedWithParent }
            guard let localDate = local.lastModified, let remoteDate = remote else { return true }
            return localDate >= remoteDate
        }
        guard unchanged(parent, parentDates[parentId], deletedWithParent: false) else { return nil }
        var missing: Set<String> = parentDates[parentId] == nil ? [parentId] : []
        for kid in kids {
            guard let id = kid.id, serverIds.contains(id) else { continue }
            guard unchanged(kid, childDates[id], deletedWithParent: cascading) else { return nil }
            if childDates[id] == nil { missing.insert(id) }
        }
        return missing
    }

    /// Modification dates on the server of these ids (absent: deleted; nil date: none).
    private func remoteDates(_ objectType: String, idField: String, dateField: String, ids: [String]) async throws -> [String: Int64?] {
        var dates: [String: Int64?] = [:]
        for record in try await RefreshSyncDownTarget.records(
            objectType, fields: [idField, dateField], idFieldName: idField, ids: ids, client: client)
        {
            if let id = record[idField]?.stringValue { dates[id] = record[dateField]?.stringValue.flatMap(SalesforceTime.parse) }
        }
        return dates
    }

    /// Stores a server error in the record's `__last_error__` (it stays dirty); returns 1. A
    /// request that was not refused for itself — rolled back with the others, halted behind a
    /// failed one, changed on the server since (412), or never sent — only leaves the record
    /// dirty: returns 0.
    private func recordError(_ body: JSONValue?, on record: JSONValue, soup: String) throws -> Int {
        let notItsOwn: Set<String> = ["ALL_OR_NONE_OPERATION_ROLLED_BACK", "PROCESSING_HALTED", "PRECONDITION_FAILED"]
        if errorItems(body ?? .null).allSatisfy({ notItsOwn.contains($0.code) }) { return 0 }
        var failed = record
        failed[LocalFields.lastError] = .string((body ?? .null).jsonString)
        try store.upsert(failed, in: soup)
        return 1
    }

    /// The error items of a subresponse body (an array of `{errorCode, message, fields}`).
    private func errorItems(_ body: JSONValue) -> [SalesforceErrorItem] {
        (body.arrayValue ?? []).compactMap(SalesforceErrorItem.init)
    }
}
