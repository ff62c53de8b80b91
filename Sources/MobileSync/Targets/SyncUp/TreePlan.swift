import FastJSON
import SalesforceREST
import SalesforceWire

/// One tree of a parent/children sync up, planned from its records alone (no store, no server):
/// the composite subrequests to send, and the local deletes to make first. ``outcome(of:)`` then
/// turns the server's answers into local writes. Both steps are pure, so the rules of
/// ``ParentChildrenSyncUpTarget`` are unit-tested without a server.
struct TreePlan {
    let parent: SyncUpRecord
    let kids: [SyncUpRecord]
    let parentEntryId: Int64
    /// The children's `_soupEntryId`s, in the order of `kids`.
    let childIds: [Int64]
    let relationshipType: RelationshipType
    let parentIdFieldName: String
    let mergeMode: MergeMode
    /// The third pass of a tree (after two recreations): nothing more is recreated.
    let retried: Bool
    /// A MASTER_DETAIL parent deleted locally: its children go with it, and are not sent.
    let cascade: Bool
    let parentServerId: String?
    /// The parent is deleted locally and the server no longer has it either.
    let parentKnownGone: Bool
    private(set) var subrequests: [CompositeSubrequest] = []
    /// Entries deleted locally before anything is sent.
    private(set) var parentDeletes: [Int64] = []
    private(set) var childDeletes: [Int64] = []
    /// Children settled locally (not sent, no outcome to apply).
    private(set) var handledLocally: Set<Int> = []

    /// Plans a tree.
    ///
    /// - Parameters:
    ///   - knownGone: server ids the LEAVE_IF_CHANGED check found deleted on the server (and
    ///     deleted locally): they are deleted locally without a request.
    ///   - pass: 1 for the first pass; recreations run passes 2 and 3.
    /// - Throws: ``SyncError/invalidTarget(_:)`` when a record to send has no field list;
    ///   ``SyncError/invalidSyncState(_:)`` for an entry without its `_soupEntryId`.
    init(
        parent parentEntry: JSONValue, children childEntries: [JSONValue], target: ParentChildrenSyncUpTarget, options: SyncOptions,
        knownGone: Set<String>, apiVersion: String, pass: Int
    ) throws {
        let (info, childInfo) = (target.parent, target.children)
        parent = SyncUpRecord(record: parentEntry, idFieldName: info.idFieldName, modificationDateFieldName: info.modificationDateFieldName)
        kids = childEntries.map {
            SyncUpRecord(record: $0, idFieldName: childInfo.idFieldName, modificationDateFieldName: childInfo.modificationDateFieldName)
        }
        childIds = childEntries.compactMap { $0["_soupEntryId"]?.int64Value }
        // Entries read from a soup always carry their id; positions pair kids with ids.
        guard childIds.count == childEntries.count, let parentEntryId = parentEntry["_soupEntryId"]?.int64Value else {
            throw SyncError.invalidSyncState("an entry of soup \(info.soupName) or \(childInfo.soupName) has no _soupEntryId")
        }
        self.parentEntryId = parentEntryId
        relationshipType = target.relationshipType
        parentIdFieldName = childInfo.parentIdFieldName
        mergeMode = options.mergeMode
        retried = pass >= 3
        cascade = target.relationshipType == .masterDetail && parent.action == .delete
        parentServerId = LocalFields.isLocalId(parent.id) ? nil : parent.id
        parentKnownGone = parent.action == .delete && knownGone.contains(parentServerId ?? "")

        if parent.action == .deleteLocalOnly {
            // Never on the server: the parent and the children made for it go locally.
            parentDeletes = [parentEntryId]
            childDeletes = childIds
            return
        }
        let base = "/services/data/v\(apiVersion)/sobjects/"
        let parentURL = base + RestClient.encodeSegment(info.objectType)
        try planParent(url: parentURL, target: target, options: options)
        let parentReference: JSONValue = parent.action == .create ? "@{parent.id}" : parentServerId.map(JSONValue.string) ?? .null
        let childURL = base + RestClient.encodeSegment(childInfo.objectType)
        try planChildren(url: childURL, parentReference: parentReference, target: target, options: options, knownGone: knownGone)
        if parent.action == .delete && !parentKnownGone { request("parent", "DELETE", parentURL + "/\(parentServerId ?? "")") }
        if parentKnownGone {
            parentDeletes.append(parentEntryId)
            if cascade { childDeletes += childIds }
        }
    }

    /// The parent's create or update, sent before the children (a delete goes after them).
    private mutating func planParent(url parentURL: String, target: ParentChildrenSyncUpTarget, options: SyncOptions) throws {
        switch parent.action {
        case .create:
            create(
                "parent", parentURL, parent, externalIdField: target.parent.externalIdFieldName,
                body: try target.fields(parent, creating: true, isChild: false, options: options))
        case .update:
            request(
                "parent", "PATCH", parentURL + "/\(parentServerId ?? "")",
                body: try target.fields(parent, creating: false, isChild: false, options: options), since: parent.lastModified)
        default: break
        }
    }

    /// The children's subrequests (none under a cascading delete); children deleted on both
    /// sides, or never sent, are deleted locally instead.
    private mutating func planChildren(
        url childURL: String, parentReference: JSONValue, target: ParentChildrenSyncUpTarget, options: SyncOptions, knownGone: Set<String>
    ) throws {
        let childInfo = target.children
        for (index, kid) in kids.enumerated() where !cascade {
            switch kid.action {
            case .create:
                var body = try target.fields(kid, creating: true, isChild: true, options: options)
                body[childInfo.parentIdFieldName] = parentReference
                create("child\(index)", childURL, kid, externalIdField: childInfo.externalIdFieldName, body: body)
            case .update:
                var body = try target.fields(kid, creating: false, isChild: true, options: options)
                if parent.action == .create { body[childInfo.parentIdFieldName] = parentReference }
                request("child\(index)", "PATCH", childURL + "/\(kid.id ?? "")", body: body, since: kid.lastModified)
            case .delete where knownGone.contains(kid.id ?? ""), .deleteLocalOnly:
                childDeletes.append(childIds[index])
                handledLocally.insert(index)
            case .delete:
                request("child\(index)", "DELETE", childURL + "/\(kid.id ?? "")")
            case .none:
                continue
            }
        }
    }

    /// LEAVE_IF_CHANGED and MERGE_FIELDS send the tree all or none, so a change landing after the
    /// check rolls it back whole.
    var allOrNone: Bool { mergeMode.keepsLocalChanges }

    private mutating func request(
        _ reference: String, _ method: String, _ url: String, body: [String: JSONValue]? = nil, since: Int64? = nil
    ) {
        var request = CompositeSubrequest(referenceId: reference, method: method, url: url, body: body.map(JSONValue.object))
        if allOrNone { request.unmodifiedSince = since }
        subrequests.append(request)
    }

    /// A create, or an upsert by the external id when the record carries a real one.
    private mutating func create(
        _ reference: String, _ url: String, _ record: SyncUpRecord, externalIdField: String?, body: [String: JSONValue]
    ) {
        guard let field = externalIdField, let value = record.record[field]?.stringValue, !value.isEmpty, !LocalFields.isLocalId(value)
        else {
            return request(reference, "POST", url, body: body)
        }
        request(
            reference, "PATCH", url + "/\(RestClient.encodeSegment(field))/\(RestClient.encodeSegment(value))",
            body: body.filter { $0.key != field })
    }
}

/// What a tree's answers mean locally: the writes to make, the errors to record, and what to
/// recreate (OVERWRITE) in another pass.
struct TreeOutcome: Equatable {
    var parentUpserts: [JSONValue] = []
    var parentDeletes: [Int64] = []
    var childUpserts: [JSONValue] = []
    var childDeletes: [Int64] = []
    /// Records the server refused for themselves, with the error body for `__last_error__`.
    var parentErrors: [JSONValue] = []
    var childErrors: [JSONValue] = []
    /// OVERWRITE: the parent is created again (it was deleted on the server).
    var recreateParent = false
    /// OVERWRITE: these children (positions) are created again.
    var recreateChildren: Set<Int> = []

    /// How many records failed (their errors are recorded).
    var failed: Int { parentErrors.count + childErrors.count }
}

extension TreePlan {
    /// The local writes the server's answers call for. With LEAVE_IF_CHANGED a failed request
    /// was rolled back whole (412 when the tree changed meanwhile); requests before it were
    /// committed, so every answer is applied.
    func outcome(of responses: [CompositeSubresponse]) -> TreeOutcome {
        let answers = Answers(responses)
        var result = TreeOutcome()
        let overwrite = mergeMode == .overwrite
        let effectiveParentId = settleParent(answers, into: &result)
        settleChildren(answers, effectiveParentId: effectiveParentId, into: &result)
        if parent.action != .create, parent.action != .none, !parentKnownGone, !answers.succeeded("parent"),
            !answers.gone("parent") || (retried && parent.action == .update)
        {
            answers.error("parent", on: parent.record, isChild: false, into: &result)
        }
        if parent.action == .create, !answers.succeeded("parent") {
            answers.error("parent", on: parent.record, isChild: false, into: &result)
        }
        if !overwrite || retried {
            result.recreateParent = false
            result.recreateChildren = []
        }
        return result
    }

    /// The server's answers to a tree's subrequests, by reference id.
    private struct Answers {
        private var outcomes: [String: (status: Int, body: JSONValue)] = [:]

        /// Indexes the subresponses by reference id.
        init(_ responses: [CompositeSubresponse]) {
            for response in responses { outcomes[response.referenceId] = (response.httpStatusCode, response.body) }
        }

        /// The body answered to `reference`; nil when it got no answer.
        func body(_ reference: String) -> JSONValue? { outcomes[reference]?.body }

        /// Whether `reference` got a 2xx answer.
        func succeeded(_ reference: String) -> Bool { outcomes[reference].map { (200..<300).contains($0.status) } ?? false }

        /// Whether the answer to `reference` says the server does not have the record (404, or an error saying so).
        func gone(_ reference: String) -> Bool {
            guard let outcome = outcomes[reference] else { return false }
            return outcome.status == 404 || TreePlan.errorItems(outcome.body).contains(where: \.meansRecordDoesNotExist)
        }

        /// Records the error answered to `reference` on `record`, if it is the record's own refusal.
        func error(_ reference: String, on record: JSONValue, isChild: Bool, into result: inout TreeOutcome) {
            let body = outcomes[reference]?.body ?? .null
            guard TreePlan.isOwnError(body) else { return }
            var failed = record
            failed[LocalFields.lastError] = .string(body.jsonString)
            if isChild { result.childErrors.append(failed) } else { result.parentErrors.append(failed) }
        }
    }

    /// The parent's writes the answers call for; returns the parent's server id as they leave it
    /// (the new one after a successful create).
    private func settleParent(_ answers: Answers, into result: inout TreeOutcome) -> String? {
        var effectiveParentId = parentServerId
        switch parent.action {
        case .create where answers.succeeded("parent"):
            effectiveParentId = answers.body("parent")?["id"]?.stringValue
            result.parentUpserts.append(parent.cleaned(id: effectiveParentId))
        case .update where answers.succeeded("parent"):
            result.parentUpserts.append(parent.cleaned(id: nil))
        case .update where answers.gone("parent") && !retried:
            result.recreateParent = true
        case .delete where answers.succeeded("parent") || answers.gone("parent") || parentKnownGone:
            result.parentDeletes.append(parentEntryId)
            if relationshipType == .masterDetail { result.childDeletes += childIds }
        default: break
        }
        return effectiveParentId
    }

    /// The children's writes, errors and recreations the answers call for; each child created,
    /// or under a parent created, points at `effectiveParentId`.
    private func settleChildren(_ answers: Answers, effectiveParentId: String?, into result: inout TreeOutcome) {
        let overwrite = mergeMode == .overwrite
        for (index, kid) in kids.enumerated() where !cascade && !handledLocally.contains(index) {
            let reference = "child\(index)"
            var cleaned = kid.cleaned(id: kid.action == .create ? answers.body(reference)?["id"]?.stringValue : nil)
            if let effectiveParentId, parent.action == .create || kid.action == .create {
                cleaned[parentIdFieldName] = .string(effectiveParentId)
            }
            switch kid.action {
            case .create, .update:
                if answers.succeeded(reference) {
                    result.childUpserts.append(cleaned)
                } else if overwrite, !retried, kid.action == .update, answers.gone(reference), !result.recreateParent {
                    result.recreateChildren.insert(index)
                } else if overwrite, !retried, kid.action == .create, parent.action != .create, answers.gone(reference),
                    Self.errorItems(answers.body(reference) ?? .null).contains(where: {
                        $0.fields.contains(parentIdFieldName) || $0.code == "ENTITY_IS_DELETED"
                    })
                {
                    result.recreateParent = true // created under a parent the server no longer has
                } else if answers.body(reference) != nil, !result.recreateParent {
                    answers.error(reference, on: kid.record, isChild: true, into: &result)
                }
            case .delete:
                if answers.succeeded(reference) || answers.gone(reference) {
                    result.childDeletes.append(childIds[index])
                } else {
                    answers.error(reference, on: kid.record, isChild: true, into: &result)
                }
            case .none where parent.action == .create:
                if let effectiveParentId {
                    var repointed = kid.record
                    repointed[parentIdFieldName] = .string(effectiveParentId)
                    result.childUpserts.append(repointed)
                }
            default: break
            }
        }
    }

    /// Whether an error body is the record's own refusal. A request that was rolled back with
    /// the others, halted behind a failed one, changed on the server since (412), or never sent
    /// only leaves the record dirty.
    static func isOwnError(_ body: JSONValue) -> Bool {
        let notItsOwn: Set<String> = ["ALL_OR_NONE_OPERATION_ROLLED_BACK", "PROCESSING_HALTED", "PRECONDITION_FAILED"]
        return !errorItems(body).allSatisfy { notItsOwn.contains($0.code) }
    }

    /// The error items of a subresponse body (an array of `{errorCode, message, fields}`).
    static func errorItems(_ body: JSONValue) -> [SalesforceErrorItem] {
        (body.arrayValue ?? []).compactMap(SalesforceErrorItem.init)
    }
}
