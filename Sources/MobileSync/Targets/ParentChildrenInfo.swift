import FastJSON

/// The parent side of a parent/children sync: its object, soup and field names.
public struct ParentInfo: Sendable, Equatable {
    public var objectType: String
    public var soupName: String
    public var idFieldName: String
    public var modificationDateFieldName: String
    public var externalIdFieldName: String?

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
    public var objectType: String
    public var objectTypePlural: String
    public var soupName: String
    public var parentIdFieldName: String
    public var idFieldName: String
    public var modificationDateFieldName: String
    public var externalIdFieldName: String?

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
    case lookup = "LOOKUP"
    case masterDetail = "MASTER_DETAIL"
}
