public import FastJSON
public import SalesforceREST
import SalesforceWire

/// Syncs down parents with their children in one SOQL query with a child subquery; parents
/// and children go to their own soups, each child carrying its parent's id.
///
/// Beyond the SDK: a resync also runs a second query on the child object (children modified
/// since the sync's boundary whose parent matches the filter), so changed children of
/// unchanged parents arrive too — the SDK documents that it misses them.
///
/// In `usersyncs.json`: `{"type": "parent_children", "parent": {…}, "parentFieldlist": […],
/// "parentSoqlFilter": "…", "children": {…, "sobjectTypePlural", "parentIdFieldName"},
/// "childrenFieldlist": […], "relationshipType": "MASTER_DETAIL"|"LOOKUP"}`.
public struct ParentChildrenSyncDownTarget: SyncDownTarget {
    /// The parents: their type, soup, id and modification date fields.
    public var parent: ParentInfo
    /// The parent and children soups: runs writing either wait for this one.
    public var additionalSoupNames: [String] { [parent.soupName, children.soupName] }
    /// The parent fields queried (the id and modification date are always added).
    public var parentFieldlist: [String]
    /// A SOQL condition on the parents (without WHERE), or nil for all of them.
    public var parentSoqlFilter: String?
    /// The children: their type, relationship name (`objectTypePlural`), soup, and the field set to the parent's id.
    public var children: ChildrenInfo
    /// The child fields queried in the subquery (the id and modification date are always added).
    public var childrenFieldlist: [String]
    /// MASTER_DETAIL or LOOKUP; sync down treats both alike (it matters to ghost cleanup and sync up).
    public var relationshipType: RelationshipType
    /// Parents per page (200…2000).
    public var maxBatchSize: Int

    /// A parent/children sync down. `maxBatchSize` is clamped to 200…2000.
    public init(
        parent: ParentInfo, parentFieldlist: [String], parentSoqlFilter: String? = nil, children: ChildrenInfo,
        childrenFieldlist: [String], relationshipType: RelationshipType, maxBatchSize: Int = 2000
    ) {
        self.parent = parent
        self.parentFieldlist = parentFieldlist
        self.parentSoqlFilter = parentSoqlFilter.flatMap { $0.isEmpty ? nil : $0 }
        self.children = children
        self.childrenFieldlist = childrenFieldlist
        self.relationshipType = relationshipType
        self.maxBatchSize = min(2000, max(200, maxBatchSize))
    }

    init(json: JSONValue) throws {
        let relationship = json["relationshipType"]?.stringValue ?? "LOOKUP"
        guard let type = RelationshipType(rawValue: relationship) else {
            throw SyncError.invalidConfig("parent_children target: relationshipType must be MASTER_DETAIL or LOOKUP, not \(relationship)")
        }
        self.init(
            parent: try ParentInfo(json: json["parent"], role: "parent"),
            parentFieldlist: json["parentFieldlist"]?.arrayValue?.compactMap(\.stringValue) ?? [],
            parentSoqlFilter: json["parentSoqlFilter"]?.stringValue, children: try ChildrenInfo(json: json["children"]),
            childrenFieldlist: json["childrenFieldlist"]?.arrayValue?.compactMap(\.stringValue) ?? [], relationshipType: type,
            maxBatchSize: json["maxBatchSize"]?.int64Value.map { Int(clamping: $0) } ?? 2000)
    }

    /// The target as JSON, with the SDK's keys (`"type": "parent_children"`, `parent`, `parentFieldlist`,
    /// `parentSoqlFilter`, `children`, `childrenFieldlist`, `relationshipType`, `maxBatchSize`).
    public var json: JSONValue {
        var json: [String: JSONValue] = [
            "type": "parent_children", "parent": .object(parent.json), "parentFieldlist": .array(parentFieldlist.map(JSONValue.string)),
            "children": .object(children.json), "childrenFieldlist": .array(childrenFieldlist.map(JSONValue.string)),
            "relationshipType": .string(relationshipType.rawValue), "maxBatchSize": .int(Int64(maxBatchSize)),
            "idFieldName": .string(parent.idFieldName), "modificationDateFieldName": .string(parent.modificationDateFieldName),
        ]
        if let parentSoqlFilter { json["parentSoqlFilter"] = .string(parentSoqlFilter) }
        return .object(json)
    }

    /// The parents' id field.
    public var idFieldName: String { parent.idFieldName }
    /// The parents' modification date field: the query is sorted by it, so the boundary advances per page.
    public var modificationDateFieldName: String { parent.modificationDateFieldName }

    private static func fields(_ list: [String], id: String, date: String, extra: [String] = []) -> String {
        var fields = [id, date]
        for field in list + extra where !fields.contains(field) { fields.append(field) }
        return fields.joined(separator: ", ")
    }

    private func since(_ field: String, _ maxTimeStamp: Int64) -> String? {
        maxTimeStamp > 0 ? "\(field) > \(SalesforceTime.format(maxTimeStamp, zulu: true))" : nil
    }

    /// `SELECT <parent fields>, (SELECT <child fields> FROM <Plural> [WHERE date > ts]) FROM <Parent>
    /// [WHERE date > ts AND (filter)] ORDER BY date`.
    public func query(maxTimeStamp: Int64) -> String {
        let childWhere = since(children.modificationDateFieldName, maxTimeStamp).map { " WHERE \($0)" } ?? ""
        let subquery =
            "(SELECT \(Self.fields(childrenFieldlist, id: children.idFieldName, date: children.modificationDateFieldName)) FROM \(children.objectTypePlural)\(childWhere))"
        let conditions = [since(parent.modificationDateFieldName, maxTimeStamp), parentSoqlFilter.map { "(\($0))" }].compactMap { $0 }
        let wherePart = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        return
            "SELECT \(Self.fields(parentFieldlist, id: parent.idFieldName, date: parent.modificationDateFieldName)), \(subquery) FROM \(parent.objectType)\(wherePart) ORDER BY \(parent.modificationDateFieldName)"
    }

    /// Children changed since `maxTimeStamp` whose parent matches the filter (whether or not the
    /// parent changed): `SELECT <child fields>, <parent id field> FROM <Child> WHERE date > ts AND
    /// <parent id field> IN (SELECT Id FROM <Parent> [WHERE filter])`.
    public func changedChildrenQuery(maxTimeStamp: Int64) -> String {
        let parents = "SELECT \(parent.idFieldName) FROM \(parent.objectType)" + (parentSoqlFilter.map { " WHERE \($0)" } ?? "")
        let conditions = [since(children.modificationDateFieldName, maxTimeStamp), "\(children.parentIdFieldName) IN (\(parents))"]
            .compactMap { $0 }
        return
            "SELECT \(Self.fields(childrenFieldlist, id: children.idFieldName, date: children.modificationDateFieldName, extra: [children.parentIdFieldName])) FROM \(children.objectType) WHERE "
            + conditions.joined(separator: " AND ") + " ORDER BY \(children.modificationDateFieldName)"
    }

    /// Which of these local parent ids still exist and match the filter.
    public func remoteIds(client: RestClient, localIds: [String]) async throws -> Set<String> {
        try await RefreshSyncDownTarget.existing(
            parent.objectType, idFieldName: parent.idFieldName, ids: localIds, condition: parentSoqlFilter, client: client)
    }

    /// Which of these local child ids still exist under a parent that matches the filter.
    public func remoteChildIds(client: RestClient, localIds: [String]) async throws -> Set<String> {
        let parents = "SELECT \(parent.idFieldName) FROM \(parent.objectType)" + (parentSoqlFilter.map { " WHERE \($0)" } ?? "")
        return try await RefreshSyncDownTarget.existing(
            children.objectType, idFieldName: children.idFieldName, ids: localIds,
            condition: "\(children.parentIdFieldName) IN (\(parents))", client: client)
    }
}
