import FastJSON
import SalesforceREST
import SalesforceWire
import SmartStore

extension ParentChildrenSyncDownTarget {
    /// Each page of parents is
    /// split into trees; children (all their nested pages) get their parent's id and go to the
    /// children soup. In LEAVE_IF_CHANGED mode a tree with any dirty record (the parent, or one
    /// of its local children) is skipped whole. On a resync, a second query brings the changed
    /// children of unchanged parents.
    ///
    /// While paging, the saved boundary advances with parents only (the query is sorted by the
    /// parents' date; a child can be newer than parents still to come); at the end it is the
    /// latest date of any record received.
    public func syncDown(_ sync: inout SyncState, context: SyncContext) async throws {
        try context.requireSoups([parent.soupName, children.soupName])
        let client = context.client
        let leaveIfChanged = sync.options.mergeMode == .leaveIfChanged
        let dirtyTrees = await leaveIfChanged ? try context.dirtyTreeIds(parent: parent, children: children) : []
        let boundary = sync.maxTimeStamp
        var latest = boundary
        var page = try await client.query(query(maxTimeStamp: boundary), batchSize: maxBatchSize == 2000 ? nil : maxBatchSize)
        sync.totalSize = page.totalSize
        try await context.save(&sync)
        var parentsSeen = 0
        while true {
            try await context.checkStop()
            var parents: [JSONValue] = []
            var kids: [JSONValue] = []
            for var record in try page.records() {
                guard let parentId = record[parent.idFieldName]?.stringValue else { continue }
                let nested = record[children.objectTypePlural]
                record[children.objectTypePlural] = nil
                let treeChildren = try await allChildren(nested, client: client)
                parentsSeen += 1
                if dirtyTrees.contains(parentId) { continue }
                parents.append(record)
                for var child in treeChildren {
                    child[children.parentIdFieldName] = .string(parentId)
                    kids.append(child)
                }
            }
            let parentDates = try await context.saveRecords(
                parents, in: parent.soupName, idFieldName: parent.idFieldName, modificationDateFieldName: parent.modificationDateFieldName,
                for: sync)
            let childDates = try await context.saveRecords(
                kids, in: children.soupName, idFieldName: children.idFieldName,
                modificationDateFieldName: children.modificationDateFieldName, for: sync)
            if let newest = parentDates { sync.maxTimeStamp = max(sync.maxTimeStamp, newest) }
            latest = max(latest, parentDates ?? -1, childDates ?? -1)
            sync.pagesFetched += 1
            sync.recordsFetched += parents.count + kids.count
            guard !page.done, let next = page.nextRecordsURL else { break }
            if sync.totalSize > 0 { sync.progress = min(99, parentsSeen * 100 / sync.totalSize) }
            try await context.save(&sync)
            page = try await client.queryMore(next)
        }
        if boundary > 0 {
            latest = max(latest, try await syncChangedChildren(&sync, since: boundary, skippingTrees: dirtyTrees, context: context))
        }
        sync.maxTimeStamp = latest
    }

    /// Changed children of parents that did not change (the resync's second query).
    private func syncChangedChildren(
        _ sync: inout SyncState, since boundary: Int64, skippingTrees dirtyTrees: Set<String>, context: SyncContext
    ) async throws -> Int64 {
        let client = context.client
        var latest: Int64 = -1
        var page = try await client.query(changedChildrenQuery(maxTimeStamp: boundary))
        sync.totalSize = max(sync.totalSize, 0).addingReportingOverflow(max(page.totalSize, 0)).partialValue
        while true {
            try await context.checkStop()
            let records = try page.records().filter { record in
                !dirtyTrees.contains(record[children.parentIdFieldName]?.stringValue ?? "")
            }
            latest = await max(
                latest,
                try context.saveRecords(
                    records, in: children.soupName, idFieldName: children.idFieldName,
                    modificationDateFieldName: children.modificationDateFieldName, for: sync) ?? -1)
            sync.pagesFetched += 1
            sync.recordsFetched += records.count
            guard !page.done, let next = page.nextRecordsURL else { return latest }
            page = try await client.queryMore(next)
        }
    }

    /// A nested child relationship's records, following its own `nextRecordsUrl` pages.
    private func allChildren(_ nested: JSONValue?, client: RestClient) async throws -> [JSONValue] {
        guard let nested, !nested.isNull else { return [] }
        let records = nested["records"]?.arrayValue ?? []
        guard nested["done"]?.boolValue == false, let next = nested["nextRecordsUrl"]?.stringValue else { return records }
        return records + (try await client.records(from: client.queryMore(next)))
    }

    /// Parents that left the filter or the server, then children no longer under a matching parent.
    public func cleanGhosts(_ sync: SyncState, context: SyncContext) async throws -> Int {
        let client = context.client
        let parents = try await context.deleteGhosts(soup: parent.soupName, idFieldName: parent.idFieldName, syncId: sync.id) {
            try await remoteIds(client: client, localIds: $0)
        }
        return parents
            + (try await context.deleteGhosts(soup: children.soupName, idFieldName: children.idFieldName, syncId: sync.id) {
                try await remoteChildIds(client: client, localIds: $0)
            })
    }
}

extension SyncContext {
    /// Ids of parents whose tree holds a dirty record: dirty parents, and parents of dirty children.
    func dirtyTreeIds(parent: ParentInfo, children: ChildrenInfo) async throws -> Set<String> {
        try await dirtyValues(of: parent.idFieldName, in: parent.soupName).union(
            dirtyValues(of: children.parentIdFieldName, in: children.soupName))
    }
}
