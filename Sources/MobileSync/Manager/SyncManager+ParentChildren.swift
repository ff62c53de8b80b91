import FastJSON
import SalesforceREST
import SalesforceWire
import SmartStore

extension SyncManager {
    /// Parent/children sync downs (``ParentChildrenSyncDownTarget``): each page of parents is
    /// split into trees; children (all their nested pages) get their parent's id and go to the
    /// children soup. In LEAVE_IF_CHANGED mode a tree with any dirty record (the parent, or one
    /// of its local children) is skipped whole. On a resync, a second query brings the changed
    /// children of unchanged parents.
    ///
    /// While paging, the saved boundary advances with parents only (the query is sorted by the
    /// parents' date; a child can be newer than parents still to come); at the end it is the
    /// latest date of any record received.
    func runParentChildrenSync(_ sync: inout SyncState, target: ParentChildrenSyncDownTarget, onUpdate: (@Sendable (SyncState) -> Void)?)
        async throws
    {
        let (parent, children) = (target.parent, target.children)
        for soup in [parent.soupName, children.soupName] where try !store.hasSoup(soup) { throw SmartStoreError.unknownSoup(soup) }
        let leaveIfChanged = sync.options.mergeMode == .leaveIfChanged
        let dirtyTrees = leaveIfChanged ? try dirtyParentIds(parent: parent, children: children) : []
        let boundary = sync.maxTimeStamp
        var latest = boundary
        var page = try await client.query(
            target.query(maxTimeStamp: boundary), batchSize: target.maxBatchSize == 2000 ? nil : target.maxBatchSize)
        sync.totalSize = page.totalSize
        try save(&sync, onUpdate: onUpdate)
        var parentsSeen = 0
        while true {
            try checkStop()
            var parents: [JSONValue] = []
            var kids: [JSONValue] = []
            for var record in try page.records() {
                guard let parentId = record[parent.idFieldName]?.stringValue else { continue }
                let nested = record[children.objectTypePlural]
                record[children.objectTypePlural] = nil
                let treeChildren = try await allChildren(nested)
                parentsSeen += 1
                if dirtyTrees.contains(parentId) { continue }
                parents.append(record)
                for var child in treeChildren {
                    child[children.parentIdFieldName] = .string(parentId)
                    kids.append(child)
                }
            }
            let parentDates = try ingest(
                parents, into: parent.soupName, id: parent.idFieldName, date: parent.modificationDateFieldName, sync: sync)
            let childDates = try ingest(
                kids, into: children.soupName, id: children.idFieldName, date: children.modificationDateFieldName, sync: sync)
            if let newest = parentDates { sync.maxTimeStamp = max(sync.maxTimeStamp, newest) }
            latest = max(latest, parentDates ?? -1, childDates ?? -1)
            sync.pagesFetched += 1
            sync.recordsFetched += parents.count + kids.count
            guard !page.done, let next = page.nextRecordsURL else { break }
            if sync.totalSize > 0 { sync.progress = min(99, parentsSeen * 100 / sync.totalSize) }
            try save(&sync, onUpdate: onUpdate)
            page = try await client.queryMore(next)
        }
        if boundary > 0 {
            latest = max(latest, try await syncChangedChildren(&sync, target: target, since: boundary, skippingTrees: dirtyTrees))
        }
        sync.maxTimeStamp = latest
    }

    /// Changed children of parents that did not change (the resync's second query).
    private func syncChangedChildren(
        _ sync: inout SyncState, target: ParentChildrenSyncDownTarget, since boundary: Int64,
        skippingTrees dirtyTrees: Set<String>
    ) async throws -> Int64 {
        let children = target.children
        var latest: Int64 = -1
        var page = try await client.query(target.changedChildrenQuery(maxTimeStamp: boundary))
        sync.totalSize = max(sync.totalSize, 0).addingReportingOverflow(max(page.totalSize, 0)).partialValue
        while true {
            try checkStop()
            let records = try page.records().filter { record in
                !dirtyTrees.contains(record[children.parentIdFieldName]?.stringValue ?? "")
            }
            latest = max(
                latest,
                try ingest(records, into: children.soupName, id: children.idFieldName, date: children.modificationDateFieldName, sync: sync)
                    ?? -1)
            sync.pagesFetched += 1
            sync.recordsFetched += records.count
            guard !page.done, let next = page.nextRecordsURL else { return latest }
            page = try await client.queryMore(next)
        }
    }

    /// A nested child relationship's records, following its own `nextRecordsUrl` pages.
    private func allChildren(_ nested: JSONValue?) async throws -> [JSONValue] {
        guard let nested, !nested.isNull else { return [] }
        let records = nested["records"]?.arrayValue ?? []
        guard nested["done"]?.boolValue == false, let next = nested["nextRecordsUrl"]?.stringValue else { return records }
        return records + (try await client.records(from: client.queryMore(next)))
    }

    /// Writes records through the bulk ingest; returns their latest modification date (nil when
    /// there are none, or one lacks the date).
    private func ingest(_ records: [JSONValue], into soup: String, id: String, date: String, sync: SyncState) throws -> Int64? {
        guard !records.isEmpty else { return nil }
        let result = try store.ingestPage(
            JSONValue.array(records).jsonBytes, into: soup, recordsPath: "", idPath: id, timestampPath: date,
            skipDirty: sync.options.mergeMode == .leaveIfChanged, setFields: LocalFields.clean(syncId: sync.id),
            removeFields: [LocalFields.lastError])
        guard result.recordsWithoutTimestamp == 0 else { return nil }
        return result.maxTimestamp.flatMap(SalesforceTime.parse)
    }

    /// Ids of parents whose tree holds a dirty record: dirty parents, and parents of dirty children.
    func dirtyParentIds(parent: ParentInfo, children: ChildrenInfo) throws -> Set<String> {
        var ids: Set<String> = []
        for (soup, field) in [(parent.soupName, parent.idFieldName), (children.soupName, children.parentIdFieldName)] {
            let sql =
                "select {\(soup):\(field)}, {\(soup):_soupEntryId} from {\(soup)} where {\(soup):\(LocalFields.local)} = 1 and {\(soup):_soupEntryId} > ? order by {\(soup):_soupEntryId}"
            var after: Int64 = 0
            while true {
                let rows = try store.query(.smart(sql, pageSize: 1000), arguments: [.int(after)])
                for row in rows { if let id = row.arrayValue?.first?.stringValue { ids.insert(id) } }
                guard rows.count == 1000, let last = rows.last?.arrayValue?.last?.int64Value else { break }
                after = last
            }
        }
        return ids
    }
}
