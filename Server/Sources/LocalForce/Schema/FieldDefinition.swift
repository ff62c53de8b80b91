/// One field of an sObject.
public struct FieldDefinition: Sendable, Hashable {
    /// How a reference field relates its object to the parent.
    public enum RelationshipKind: String, Sendable, Hashable, Codable {
        case lookup, masterDetail
    }

    /// The API name (`Name`, `Amount__c`).
    public var name: String
    /// The label describe reports.
    public var label: String
    /// The field's type (text, number, date, reference, …).
    public var type: FieldType
    /// Maximum length for text types.
    public var length: Int
    /// Must be given on create (and cannot be nulled).
    public var required: Bool
    /// Set by the server only (system fields, computed names, auto numbers).
    public var readOnly: Bool
    /// Whether the field is an external id: records can be upserted by it.
    public var externalId: Bool
    /// Whether two records may not hold the same value.
    public var unique: Bool
    /// Value used on create when none is given.
    public var defaultValue: String?
    /// Allowed values for picklists (not enforced when empty).
    public var picklistValues: [String]
    /// For references: the parent object(s).
    public var referenceTo: [String]
    /// For references: the relationship name on this object (`Account` for `AccountId`).
    public var relationshipName: String?
    /// For references: the child relationship name on the parent (`Contacts`).
    public var childRelationshipName: String?
    /// For references: lookup or master-detail.
    public var relationshipKind: RelationshipKind?
    /// Whether the field is the object's name field.
    public var isNameField: Bool
    /// Whether the field is custom (its name ends in `__c`).
    public var custom: Bool

    /// A field; the label defaults to one derived from the name, and `custom` follows the name.
    public init(
        _ name: String, _ type: FieldType, label: String? = nil, length: Int? = nil, required: Bool = false,
        readOnly: Bool = false, externalId: Bool = false, unique: Bool = false, defaultValue: String? = nil,
        picklistValues: [String] = [], referenceTo: [String] = [], relationshipName: String? = nil,
        childRelationshipName: String? = nil, relationshipKind: RelationshipKind? = nil, isNameField: Bool = false
    ) {
        self.name = name
        self.label = label ?? FieldDefinition.label(for: name)
        self.type = type
        self.length = length ?? FieldDefinition.defaultLength(type)
        self.required = required
        self.readOnly = readOnly
        self.externalId = externalId
        self.unique = unique
        self.defaultValue = defaultValue
        self.picklistValues = picklistValues
        self.referenceTo = referenceTo
        self.relationshipName = relationshipName
        self.childRelationshipName = childRelationshipName
        self.relationshipKind = relationshipKind
        self.isNameField = isNameField
        self.custom = name.hasSuffix("__c")
    }

    static func defaultLength(_ type: FieldType) -> Int {
        switch type {
        case .id, .reference: 18
        case .string, .email, .url, .picklist: 255
        case .phone: 40
        case .textarea: 32768
        case .multipicklist: 4099
        default: 0
        }
    }

    /// `BillingCity` → `Billing City`, `Amount__c` → `Amount`.
    static func label(for name: String) -> String {
        var base = name.hasSuffix("__c") || name.hasSuffix("__e") ? String(name.dropLast(3)) : name
        if base.hasSuffix("Id"), base.count > 2 { base = String(base.dropLast(2)) }
        var label = ""
        for character in base {
            if character == "_" {
                label.append(" ")
                continue
            }
            if character.isUppercase, let last = label.last, last.isLowercase { label.append(" ") }
            label.append(character)
        }
        return label
    }
}
