import FastJSON

/// Describe results generated from the schema.
enum Describe {
    private static func urls(_ object: ObjectDefinition, _ version: String) -> JSONValue {
        let base = "/services/data/v\(version)/sobjects/\(object.name)"
        return ["sobject": .string(base), "describe": .string(base + "/describe"), "rowTemplate": .string(base + "/{ID}")]
    }

    /// A describeGlobal entry (also `objectDescribe` of the basic-info resource). A platform
    /// event is custom, can only be published (created), and is not queryable, as Salesforce
    /// describes one.
    static func summary(_ object: ObjectDefinition, version: String) -> JSONValue {
        let stored = JSONValue.bool(!object.isPlatformEvent)
        return [
            "activateable": false, "createable": true, "custom": .bool(object.custom || object.isPlatformEvent), "customSetting": false,
            "deletable": stored, "deprecatedAndHidden": false, "feedEnabled": false, "keyPrefix": .string(object.keyPrefix),
            "label": .string(object.label), "labelPlural": .string(object.labelPlural), "layoutable": stored, "mergeable": false,
            "mruEnabled": .bool(object.mruEnabled), "name": .string(object.name), "queryable": stored, "replicateable": stored,
            "retrieveable": stored, "searchable": stored, "triggerable": true, "undeletable": stored, "updateable": stored,
            "urls": urls(object, version),
        ]
    }

    /// The full describe of an object: fields and child relationships.
    static func full(_ object: ObjectDefinition, schema: Schema, version: String) -> JSONValue {
        guard case .object(var result) = summary(object, version: version) else { return .null }
        result["fields"] = .array(object.fields.map(field))
        result["childRelationships"] = .array(
            schema.childRelationships(of: object.name).map { relationship in
                [
                    "childSObject": .string(relationship.childObject), "field": .string(relationship.field),
                    "relationshipName": .string(relationship.name), "cascadeDelete": .bool(relationship.kind == .masterDetail),
                    "restrictedDelete": false, "deprecatedAndHidden": false,
                ]
            })
        result["recordTypeInfos"] = [
            [
                "available": true, "defaultRecordTypeMapping": true, "master": true, "name": "Master",
                "recordTypeId": "012000000000000AAA",
            ]
        ]
        return .object(result)
    }

    static func field(_ field: FieldDefinition) -> JSONValue {
        let system = SystemFields.names.contains(field.name)
        return [
            "name": .string(field.name), "label": .string(field.label), "type": .string(field.type.rawValue),
            "soapType": .string(field.type.soapType),
            "length": .int(Int64(field.type.isText || field.type == .id || field.type == .reference ? field.length : 0)),
            "precision": .int(field.type.isNumber && field.type != .int ? 18 : 0), "scale": .int(field.type == .currency ? 2 : 0),
            "digits": .int(field.type == .int ? 9 : 0), "byteLength": .int(Int64(field.type.isText ? field.length * 3 : 0)),
            "nillable": .bool(!field.required && field.type != .boolean && field.name != "Id"), "createable": .bool(!field.readOnly),
            "updateable": .bool(!field.readOnly && field.relationshipKind != .masterDetail),
            "defaultedOnCreate": .bool(field.defaultValue != nil || system),
            "defaultValue": field.defaultValue.map(JSONValue.string) ?? .null, "externalId": .bool(field.externalId),
            "idLookup": .bool(field.name == "Id" || field.externalId), "unique": .bool(field.unique), "caseSensitive": false,
            "custom": .bool(field.custom), "calculated": .bool(field.readOnly && !system), "autoNumber": .bool(field.name == "CaseNumber"),
            "filterable": true, "sortable": .bool(field.type != .textarea && field.type != .multipicklist),
            "groupable": .bool(field.type != .textarea),
            "nameField": .bool(field.isNameField), "referenceTo": .array(field.referenceTo.map(JSONValue.string)),
            "relationshipName": field.relationshipName.map(JSONValue.string) ?? .null,
            "cascadeDelete": .bool(field.relationshipKind == .masterDetail),
            "picklistValues": .array(
                field.picklistValues.map {
                    ["value": .string($0), "label": .string($0), "active": true, "defaultValue": .bool($0 == field.defaultValue)]
                }),
        ]
    }
}
