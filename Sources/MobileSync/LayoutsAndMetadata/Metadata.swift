public import FastJSON

/// An object's describe, as ``MetadataSyncManager`` returns it (the SDK's `Metadata`): its
/// flags, names and fields, and the whole describe in ``rawData``.
public struct Metadata: Sendable, Hashable {
    /// The object's API name.
    public let name: String
    /// Its label, and plural label.
    public let label: String?, labelPlural: String?
    /// The first three characters of its record ids.
    public let keyPrefix: String
    /// What can be done with its records.
    public let createable: Bool, updateable: Bool, deletable: Bool, queryable: Bool, searchable: Bool, undeletable: Bool,
        retrieveable: Bool, replicateable: Bool, mergeable: Bool, triggerable: Bool
    /// What the object is and has.
    public let custom: Bool, customSetting: Bool, activateable: Bool, layoutable: Bool, compactLayoutable: Bool,
        searchLayoutable: Bool, feedEnabled: Bool, mruEnabled: Bool, hasSubtypes: Bool, isSubtype: Bool, deprecatedAndHidden: Bool
    /// Its fields' describes (`name`, `type`, `label`, `length`…), as the server sends them.
    public let fields: [JSONValue]
    /// Its child relationships, as the server sends them.
    public let childRelationships: [JSONValue]
    /// The field that scopes records to an Experience Cloud site, if any.
    public let networkScopeFieldName: String?
    /// Its resource URLs (`sobject`, `describe`, `rowTemplate`…).
    public let urls: [String: String]
    /// The whole describe, for what the model does not name.
    public let rawData: JSONValue

    /// The names of the fields (from ``fields``).
    public var fieldNames: [String] { fields.compactMap { $0["name"]?.stringValue } }

    /// Metadata from a describe's JSON (the SDK's `fromJSON`). Missing or mistyped members read
    /// as absent, false or empty.
    public init(json: JSONValue) {
        func flag(_ key: String) -> Bool { json[key]?.boolValue ?? false }
        rawData = json
        name = json["name"]?.stringValue ?? ""
        label = json["label"]?.stringValue
        labelPlural = json["labelPlural"]?.stringValue
        keyPrefix = json["keyPrefix"]?.stringValue ?? ""
        (createable, updateable, deletable, queryable, searchable) = (
            flag("createable"), flag("updateable"), flag("deletable"), flag("queryable"), flag("searchable")
        )
        (undeletable, retrieveable, replicateable, mergeable, triggerable) = (
            flag("undeletable"), flag("retrieveable"), flag("replicateable"), flag("mergeable"), flag("triggerable")
        )
        (custom, customSetting, activateable, layoutable, compactLayoutable) = (
            flag("custom"), flag("customSetting"), flag("activateable"), flag("layoutable"), flag("compactLayoutable")
        )
        (searchLayoutable, feedEnabled, mruEnabled, hasSubtypes, isSubtype, deprecatedAndHidden) = (
            flag("searchLayoutable"), flag("feedEnabled"), flag("mruEnabled"), flag("hasSubtypes"), flag("isSubtype"),
            flag("deprecatedAndHidden")
        )
        fields = json["fields"]?.arrayValue ?? []
        childRelationships = json["childRelationships"]?.arrayValue ?? []
        networkScopeFieldName = json["networkScopeFieldName"]?.stringValue
        urls = (json["urls"]?.objectValue ?? [:]).compactMapValues(\.stringValue)
    }
}
