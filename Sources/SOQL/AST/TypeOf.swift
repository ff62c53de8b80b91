/// `TYPEOF What WHEN Account THEN Phone, Name WHEN Opportunity THEN Amount ELSE Name END`: the
/// fields of a polymorphic relationship, by the type of the record it points to.
public struct TypeOf: Sendable, Hashable {
    /// One `WHEN type THEN fields` branch.
    public struct Branch: Sendable, Hashable {
        /// The object type (`Account`).
        public var object: String
        /// The fields read when the related record is of that type.
        public var fields: [FieldPath]

        /// A branch; see the properties.
        public init(object: String, fields: [FieldPath]) {
            self.object = object
            self.fields = fields
        }
    }

    /// The polymorphic relationship (`What`, `Who`, `Owner`).
    public var relationship: String
    /// The `WHEN` branches, in order (at least one).
    public var branches: [Branch]
    /// The `ELSE` fields (empty: none).
    public var elseFields: [FieldPath]

    /// A TYPEOF; see the properties.
    public init(relationship: String, branches: [Branch], elseFields: [FieldPath] = []) {
        self.relationship = relationship
        self.branches = branches
        self.elseFields = elseFields
    }
}

/// `FIELDS(ALL)`, `FIELDS(STANDARD)`, `FIELDS(CUSTOM)`.
public enum FieldsSelector: String, Sendable, Hashable, CaseIterable {
    /// Every field (needs `LIMIT` 200 or less).
    case all = "ALL"
    /// The standard fields.
    case standard = "STANDARD"
    /// The custom fields (needs `LIMIT` 200 or less).
    case custom = "CUSTOM"
}
