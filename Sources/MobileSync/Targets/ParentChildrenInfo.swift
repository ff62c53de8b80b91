import FastJSON

/// The parent side of a parent/children sync: its object, soup and field names.
public struct ParentInfo: Sendable, Equatable {
    /// The parents' sObject type (`sobjectType`).
    public var objectType: String
    /// The soup the parents are stored in.
    public var soupName: String
    /// The parents' id field (`Id`).
    public var idFieldName: String
    /// The parents' modification date field (`LastModifiedDate`).
    public var modificationDateFieldName: String
    /// A field holding an external id: a parent created locally with a real value there is upserted by it.
    public var externalIdFieldName: String?

    /// The parent side; the field names default to the SDK's.
    public init(
        objectType: String, soupName: String, idFieldName: String = "Id", modificationDateFieldName: String = "LastModifiedDate",
        externalIdFieldName: String? = nil
    ) {
        self.objectType = objectType
        self.soupName = soupName
        self.idFieldName = idFieldName
        self.modificationDateFieldName = modificationDateFieldName
        self.externalIdFieldName = externalIdFieldName
    }

    init(json: JSONValue?, role: String) throws {
        guard let json, let type = json["sobjectType"]?.stringValue, let soup = json["soupName"]?.stringValue else {
            throw SyncError.invalidConfig("parent_children target: \(role) needs \"sobjectType\" and \"soupName\"")
        }
        self.init(
            objectType: type, soupName: soup, idFieldName: json["idFieldName"]?.stringValue ?? "Id",
            modificationDateFieldName: json["modificationDateFieldName"]?.stringValue ?? "LastModifiedDate",
            externalIdFieldName: json["externalIdFieldName"]?.stringValue)
    }

    var json: [String: JSONValue] {
        var json: [String: JSONValue] = [
            "sobjectType": .string(objectType), "soupName": .string(soupName), "idFieldName": .string(idFieldName),
            "modificationDateFieldName": .string(modificationDateFieldName),
        ]
        if let externalIdFieldName { json["externalIdFieldName"] = .string(externalIdFieldName) }
        return json
    }
}

/// The children side: like ``ParentInfo``, plus the child relationship's plural name (the
/// subquery's FROM, `Contacts`) and the field that holds the parent's id (`AccountId`).
public struct ChildrenInfo: Sendable, Equatable {
    /// The children's sObject type (`sobjectType`).
    public var objectType: String
    /// The child relationship's name, used as the subquery's FROM (`Contacts`).
    public var objectTypePlural: String
    /// The soup the children are stored in.
    public var soupName: String
    /// The child field holding its parent's id (`AccountId`); sync down sets it, sync up re-points it.
    public var parentIdFieldName: String
    /// The children's id field (`Id`).
    public var idFieldName: String
    /// The children's modification date field (`LastModifiedDate`).
    public var modificationDateFieldName: String
    /// A field holding an external id: a child created locally with a real value there is upserted by it.
    public var externalIdFieldName: String?

    /// The children side; the field names default to the SDK's.
    public init(
        objectType: String, objectTypePlural: String, soupName: String, parentIdFieldName: String, idFieldName: String = "Id",
        modificationDateFieldName: String = "LastModifiedDate", externalIdFieldName: String? = nil
    ) {
        self.objectType = objectType
        self.objectTypePlural = objectTypePlural
        self.soupName = soupName
        self.parentIdFieldName = parentIdFieldName
        self.idFieldName = idFieldName
        self.modificationDateFieldName = modificationDateFieldName
        self.externalIdFieldName = externalIdFieldName
    }

    init(json: JSONValue?) throws {
        let base = try ParentInfo(json: json, role: "children")
        guard let plural = json?["sobjectTypePlural"]?.stringValue, let parentId = json?["parentIdFieldName"]?.stringValue else {
            throw SyncError.invalidConfig("parent_children target: children need \"sobjectTypePlural\" and \"parentIdFieldName\"")
        }
        self.init(
            objectType: base.objectType, objectTypePlural: plural, soupName: base.soupName, parentIdFieldName: parentId,
            idFieldName: base.idFieldName, modificationDateFieldName: base.modificationDateFieldName,
            externalIdFieldName: base.externalIdFieldName)
    }

    var json: [String: JSONValue] {
        var json = ParentInfo(
            objectType: objectType, soupName: soupName, idFieldName: idFieldName, modificationDateFieldName: modificationDateFieldName,
            externalIdFieldName: externalIdFieldName
        ).json
        json["sobjectTypePlural"] = .string(objectTypePlural)
        json["parentIdFieldName"] = .string(parentIdFieldName)
        return json
    }
}

/// How children depend on their parent: deleting a MASTER_DETAIL parent deletes its children.
public enum RelationshipType: String, Sendable {
    /// `LOOKUP`: the children do not go with their parent (the default when `relationshipType` is absent).
    case lookup = "LOOKUP"
    /// `MASTER_DETAIL`: the server deletes the children with their parent.
    case masterDetail = "MASTER_DETAIL"
}
