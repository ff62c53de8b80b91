/// One sObject type: its name, key prefix and fields.
public struct ObjectDefinition: Sendable, Hashable {
    /// The API name (`Account`, `Invoice__c`).
    public var name: String
    /// The label describe reports.
    public var label: String
    /// The plural label describe reports.
    public var labelPlural: String
    /// The 3-character id prefix (`001`).
    public var keyPrefix: String
    /// The fields, in order.
    public var fields: [FieldDefinition] {
        didSet { reindex() }
    }
    /// Field positions by lower-cased name and by lower-cased relationship name (lookups are hot).
    private var byName: [String: Int] = [:]
    private var byRelationship: [String: Int] = [:]
    /// Whether the object appears in MRU lists (recently viewed).
    public var mruEnabled: Bool
    /// Whether the object is custom (its name ends in `__c`).
    public var custom: Bool { name.hasSuffix("__c") }
    /// Whether the object is a platform event (its name ends in `__e`): records of it are
    /// published on `/event/<name>`, never stored.
    public var isPlatformEvent: Bool { name.hasSuffix("__e") }

    /// An object; the labels default to ones derived from the name.
    public init(
        name: String, label: String? = nil, labelPlural: String? = nil, keyPrefix: String, fields: [FieldDefinition],
        mruEnabled: Bool = true
    ) {
        self.name = name
        self.label = label ?? FieldDefinition.label(for: name)
        self.labelPlural = labelPlural ?? (self.label + "s")
        self.keyPrefix = keyPrefix
        self.fields = fields
        self.mruEnabled = mruEnabled
        reindex()
    }

    private mutating func reindex() {
        byName = [:]
        byRelationship = [:]
        for (index, field) in fields.enumerated() {
            byName[field.name.lowercased()] = byName[field.name.lowercased()] ?? index
            if let relationship = field.relationshipName?.lowercased() {
                byRelationship[relationship] = byRelationship[relationship] ?? index
            }
        }
    }

    /// The field named `name`, case-insensitively.
    public func field(named name: String) -> FieldDefinition? {
        byName[name.lowercased()].map { fields[$0] }
    }

    /// The reference field whose relationship name is `name` (`Account` → `AccountId`), case-insensitively.
    public func field(forRelationship name: String) -> FieldDefinition? {
        byRelationship[name.lowercased()].map { fields[$0] }
    }

    /// The name field (`Name`, or the first field flagged as such).
    public var nameField: FieldDefinition? {
        fields.first { $0.isNameField } ?? field(named: "Name")
    }
}
