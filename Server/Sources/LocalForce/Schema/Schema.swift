/// The objects a LocalForce serves: the built-in ones plus those of a schema file.
public struct Schema: Sendable {
    /// A child relationship as seen from the parent (`Account.Contacts`).
    public struct ChildRelationship: Sendable, Hashable {
        /// The relationship name (`Contacts`), used as a subquery's FROM.
        public var name: String
        /// The child object (`Contact`).
        public var childObject: String
        /// The child's reference field (`AccountId`).
        public var field: String
        /// Lookup or master-detail.
        public var kind: FieldDefinition.RelationshipKind
    }

    /// Objects in declaration order, each with its system fields first.
    public private(set) var objects: [ObjectDefinition]
    private var byName: [String: Int] = [:]
    private var byPrefix: [String: Int] = [:]
    private var children: [String: [ChildRelationship]] = [:]

    /// The built-in schema.
    public static let standard: Schema = {
        do {
            return try Schema(objects: StandardObjects.all)
        } catch {
            preconditionFailure("built-in schema is invalid: \(error)")
        }
    }()

    /// Builds a schema; system fields are added to every object.
    public init(objects: [ObjectDefinition]) throws(SchemaError) {
        self.objects = []
        for object in objects { try add(object) }
        try link()
    }

    /// The object named `name`, case-insensitively.
    public func object(named name: String) -> ObjectDefinition? {
        byName[name.lowercased()].map { objects[$0] }
    }

    /// The object whose ids start with `prefix`.
    public func object(withKeyPrefix prefix: String) -> ObjectDefinition? {
        byPrefix[prefix].map { objects[$0] }
    }

    /// The child relationships of an object.
    public func childRelationships(of object: String) -> [ChildRelationship] {
        children[object.lowercased()] ?? []
    }

    /// The child relationship named `name` on `object`, case-insensitively.
    public func childRelationship(_ name: String, of object: String) -> ChildRelationship? {
        childRelationships(of: object).first { $0.name.lowercased() == name.lowercased() }
    }

    mutating func add(_ object: ObjectDefinition) throws(SchemaError) {
        try SchemaError.check(identifier: object.name, what: "object")
        guard byName[object.name.lowercased()] == nil else { throw SchemaError("object \(object.name) is defined twice") }
        guard object.keyPrefix.count == 3, object.keyPrefix.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            throw SchemaError("object \(object.name) needs a 3-character alphanumeric keyPrefix")
        }
        guard byPrefix[object.keyPrefix] == nil else { throw SchemaError("keyPrefix \(object.keyPrefix) is used twice") }
        var complete = object
        complete.fields =
            SystemFields.definitions(mruEnabled: object.mruEnabled) + object.fields.filter { !SystemFields.names.contains($0.name) }
        byName[object.name.lowercased()] = objects.count
        byPrefix[object.keyPrefix] = objects.count
        objects.append(complete)
        try validateFields(of: complete)
    }

    /// Adds fields to an existing object (schema files may extend standard objects).
    mutating func addFields(_ fields: [FieldDefinition], to objectName: String) throws(SchemaError) {
        guard let index = byName[objectName.lowercased()] else { throw SchemaError("fields added to unknown object \(objectName)") }
        objects[index].fields += fields
        try validateFields(of: objects[index])
    }

    private func validateFields(of object: ObjectDefinition) throws(SchemaError) {
        var seen: Set<String> = []
        for field in object.fields {
            try SchemaError.check(identifier: field.name, what: "field of \(object.name)")
            guard seen.insert(field.name.lowercased()).inserted else {
                throw SchemaError("field \(object.name).\(field.name) is defined twice")
            }
            if field.type == .reference, !SystemFields.names.contains(field.name) {
                guard field.relationshipName != nil, !field.referenceTo.isEmpty else {
                    throw SchemaError("reference field \(object.name).\(field.name) needs referenceTo and relationshipName")
                }
            }
        }
    }

    /// Resolves references and child relationships once every object is known.
    mutating func link() throws(SchemaError) {
        children = [:]
        for object in objects {
            for field in object.fields where field.type == .reference {
                for parent in field.referenceTo {
                    guard let parentObject = self.object(named: parent) else {
                        throw SchemaError("\(object.name).\(field.name) references unknown object \(parent)")
                    }
                    guard let childName = field.childRelationshipName else { continue }
                    children[parentObject.name.lowercased(), default: []].append(
                        ChildRelationship(
                            name: childName, childObject: object.name, field: field.name, kind: field.relationshipKind ?? .lookup))
                }
            }
        }
    }
}

/// A schema that cannot be used, with what is wrong.
public struct SchemaError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong with the schema.
    public var description: String
    init(_ description: String) { self.description = description }

    /// API names: a letter, then letters, digits and single underscores (`__c`, `__r` suffixes allowed).
    static func check(identifier: String, what: String) throws(SchemaError) {
        let characters = Array(identifier)
        guard let first = characters.first, first.isASCII, first.isLetter, characters.count <= 80,
            characters.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") })
        else {
            throw SchemaError("invalid \(what) name '\(identifier)'")
        }
    }
}
