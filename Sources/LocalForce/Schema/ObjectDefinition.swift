/// One sObject type: its name, key prefix and fields.
public struct ObjectDefinition: Sendable, Hashable {
    public var name: String
    public var label: String
    public var labelPlural: String
    /// The 3-character id prefix (`001`).
    public var keyPrefix: String
    public var fields: [FieldDefinition]
    /// Whether the object appears in MRU lists (recently viewed).
    public var mruEnabled: Bool
    public var custom: Bool { name.hasSuffix("__c") }

    public init(name: String, label: String? = nil, labelPlural: String? = nil, keyPrefix: String, fields: [FieldDefinition],
                mruEnabled: Bool = true) {
        self.name = name
        self.label = label ?? FieldDefinition.label(for: name)
        self.labelPlural = labelPlural ?? (self.label + "s")
        self.keyPrefix = keyPrefix
        self.fields = fields
        self.mruEnabled = mruEnabled
    }

    /// The field named `name`, case-insensitively.
    public func field(named name: String) -> FieldDefinition? {
        let lower = name.lowercased()
        return fields.first { $0.name.lowercased() == lower }
    }

    /// The reference field whose relationship name is `name` (`Account` → `AccountId`), case-insensitively.
    public func field(forRelationship name: String) -> FieldDefinition? {
        let lower = name.lowercased()
        return fields.first { $0.relationshipName?.lowercased() == lower }
    }

    /// The name field (`Name`, or the first field flagged as such).
    public var nameField: FieldDefinition? {
        fields.first { $0.isNameField } ?? field(named: "Name")
    }
}
