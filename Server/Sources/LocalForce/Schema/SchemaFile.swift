public import Foundation

/// Loads custom objects and fields from a JSON schema file.
///
/// ```json
/// { "objects": [ { "name": "Project__c", "label": "Project", "keyPrefix": "a05",
///                  "fields": [ {"name": "Code__c", "type": "string", "length": 20, "required": true, "externalId": true},
///                              {"name": "Account__c", "type": "reference", "referenceTo": "Account",
///                               "relationshipName": "Account__r", "childRelationshipName": "Projects__r",
///                               "relationshipKind": "masterDetail"} ] } ],
///   "fields": { "Account": [ {"name": "Region__c", "type": "picklist", "picklistValues": ["EMEA", "APAC"]} ] } }
/// ```
/// Custom object and field names must end in `__c`; an object whose name ends in `__e` is a
/// platform event (published on `/event/<name>` when created, never stored).
public enum SchemaFile {
    struct FieldSpec: Decodable {
        var name: String
        var type: FieldType
        var label: String?
        var length: Int?
        var required: Bool?
        var externalId: Bool?
        var unique: Bool?
        var defaultValue: String?
        var picklistValues: [String]?
        var referenceTo: String?
        var relationshipName: String?
        var childRelationshipName: String?
        var relationshipKind: FieldDefinition.RelationshipKind?

        func definition() throws(SchemaError) -> FieldDefinition {
            guard name.hasSuffix("__c") else { throw SchemaError("custom field \(name) must end in __c") }
            if type == .id { throw SchemaError("field \(name) cannot have type id") }
            // Salesforce's longest text field (long text area) holds 131,072 characters.
            if let length, !(1...131_072).contains(length) {
                throw SchemaError("field \(name): length must be between 1 and 131072, not \(length)")
            }
            return FieldDefinition(
                name, type, label: label, length: length, required: required ?? (relationshipKind == .masterDetail),
                externalId: externalId ?? false, unique: unique ?? false, defaultValue: defaultValue,
                picklistValues: picklistValues ?? [], referenceTo: referenceTo.map { [$0] } ?? [],
                relationshipName: relationshipName, childRelationshipName: childRelationshipName,
                relationshipKind: type == .reference ? (relationshipKind ?? .lookup) : nil)
        }
    }

    struct ObjectSpec: Decodable {
        var name: String
        var label: String?
        var labelPlural: String?
        var keyPrefix: String
        var fields: [FieldSpec]?
    }

    struct File: Decodable {
        var objects: [ObjectSpec]?
        var fields: [String: [FieldSpec]]?
    }

    /// The standard schema extended by the file's objects and fields.
    public static func load(_ data: Data, base: Schema = .standard) throws(SchemaError) -> Schema {
        let file: File
        do {
            file = try JSONDecoder().decode(File.self, from: data)
        } catch {
            throw SchemaError("schema file is not valid: \(error)")
        }
        var schema = base
        for spec in file.objects ?? [] {
            let isEvent = spec.name.hasSuffix("__e")
            guard spec.name.hasSuffix("__c") || isEvent else {
                throw SchemaError("custom object \(spec.name) must end in __c (or __e for a platform event)")
            }
            var fields: [FieldDefinition] = []
            for field in spec.fields ?? [] { fields.append(try field.definition()) }
            if !isEvent, !fields.contains(where: { $0.name == "Name" }) {
                fields.insert(
                    FieldDefinition("Name", .string, label: "\(spec.label ?? spec.name) Name", length: 80, isNameField: true), at: 0)
            }
            try schema.add(
                ObjectDefinition(
                    name: spec.name, label: spec.label, labelPlural: spec.labelPlural, keyPrefix: spec.keyPrefix,
                    fields: fields, mruEnabled: !isEvent))
        }
        for (object, specs) in (file.fields ?? [:]).sorted(by: { $0.key < $1.key }) {
            var fields: [FieldDefinition] = []
            for field in specs { fields.append(try field.definition()) }
            try schema.addFields(fields, to: object)
        }
        try schema.link()
        return schema
    }

    /// Loads a schema file from disk.
    public static func load(contentsOf url: URL) throws(SchemaError) -> Schema {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw SchemaError("cannot read schema file \(url.path): \(error.localizedDescription)")
        }
        return try load(data)
    }
}
