public import FastJSON
import SalesforceREST

/// Syncs up trees: a parent and its children, one `/composite` request per tree whose parent
/// or any child is dirty. The parent goes first (last when it is deleted); new children point
/// at a new parent through `@{parent.id}`. Trees span two soups: the target runs the whole sync
/// up (``syncUp(_:context:)``), and the sync's soup is the parents' soup.
///
/// LEAVE_IF_CHANGED checks the whole tree first (the server dates of the parent and of the
/// children, read by id: every record must be unchanged on the server since it was synced
/// down, a remote delete only matches a local delete) and then sends the tree with `allOrNone` and `If-Unmodified-Since` on every
/// update, so a change landing between the check and the write rolls the whole tree back
/// instead of being overwritten. Deletes still rely on the check (DELETE takes no condition).
///
/// OVERWRITE recreates what the server lost: a parent updated locally but deleted remotely is
/// created again and its children recreated (MASTER_DETAIL) or re-pointed (LOOKUP); a child
/// updated locally but deleted remotely is created again; children created under a parent the
/// server deleted bring the parent back. A MASTER_DETAIL parent deleted locally takes its
/// children with it, locally and on the server.
public struct ParentChildrenSyncUpTarget: SyncUpTarget {
    /// The parents: their type, soup, id, modification date and external-id fields.
    public var parent: ParentInfo
    /// The parent and children soups: runs writing either wait for this one.
    public var additionalSoupNames: [String] { [parent.soupName, children.soupName] }
    /// The children: their type, soup, and the field that points at the parent (`parentIdFieldName`).
    public var children: ChildrenInfo
    /// MASTER_DETAIL (children are deleted with their parent) or LOOKUP.
    public var relationshipType: RelationshipType
    /// The fields sent when creating a parent; nil: the sync options' field list.
    public var createFieldlist: [String]?
    /// The fields sent when updating a parent; nil: the sync options' field list.
    public var updateFieldlist: [String]?
    /// The fields sent when creating a child (the parent id field is added); nil: the sync options' field list.
    public var childrenCreateFieldlist: [String]?
    /// The fields sent when updating a child; nil: the sync options' field list.
    public var childrenUpdateFieldlist: [String]?

    /// A parent/children sync up; the field lists default to the sync options' `fieldlist`.
    public init(
        parent: ParentInfo, children: ChildrenInfo, relationshipType: RelationshipType, createFieldlist: [String]? = nil,
        updateFieldlist: [String]? = nil, childrenCreateFieldlist: [String]? = nil, childrenUpdateFieldlist: [String]? = nil
    ) {
        self.parent = parent
        self.children = children
        self.relationshipType = relationshipType
        self.createFieldlist = createFieldlist
        self.updateFieldlist = updateFieldlist
        self.childrenCreateFieldlist = childrenCreateFieldlist
        self.childrenUpdateFieldlist = childrenUpdateFieldlist
    }

    init(json: JSONValue) throws {
        let relationship = json["relationshipType"]?.stringValue ?? "LOOKUP"
        guard let type = RelationshipType(rawValue: relationship) else {
            throw SyncError.invalidConfig("parent_children target: relationshipType must be MASTER_DETAIL or LOOKUP, not \(relationship)")
        }
        func list(_ key: String) -> [String]? { json[key]?.arrayValue?.compactMap(\.stringValue) }
        self.init(
            parent: try ParentInfo(json: json["parent"], role: "parent"), children: try ChildrenInfo(json: json["children"]),
            relationshipType: type, createFieldlist: list("createFieldlist"), updateFieldlist: list("updateFieldlist"),
            childrenCreateFieldlist: list("childrenCreateFieldlist"), childrenUpdateFieldlist: list("childrenUpdateFieldlist"))
    }

    /// The target as JSON, with the SDK's keys (`"type": "parent_children"`, `parent`, `children`, `relationshipType`,
    /// the four field lists).
    public var json: JSONValue {
        var json: [String: JSONValue] = [
            "type": "parent_children", "parent": .object(parent.json), "children": .object(children.json),
            "relationshipType": .string(relationshipType.rawValue), "idFieldName": .string(parent.idFieldName),
            "modificationDateFieldName": .string(parent.modificationDateFieldName),
        ]
        for (key, list) in [
            ("createFieldlist", createFieldlist), ("updateFieldlist", updateFieldlist),
            ("childrenCreateFieldlist", childrenCreateFieldlist), ("childrenUpdateFieldlist", childrenUpdateFieldlist),
        ] {
            if let list { json[key] = .array(list.map(JSONValue.string)) }
        }
        return .object(json)
    }

    /// The parents' id field.
    public var idFieldName: String { parent.idFieldName }
    /// The parents' modification date field.
    public var modificationDateFieldName: String { parent.modificationDateFieldName }

    func fields(_ record: SyncUpRecord, creating: Bool, isChild: Bool, options: SyncOptions) throws -> [String: JSONValue] {
        let list = isChild ? (creating ? childrenCreateFieldlist : childrenUpdateFieldlist) : (creating ? createFieldlist : updateFieldlist)
        guard let fields = list ?? options.fieldlist else { throw SyncError.invalidTarget("No fields specified") }
        return record.fields(fields)
    }
}
