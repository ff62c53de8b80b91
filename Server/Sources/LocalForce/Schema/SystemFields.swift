/// The fields every object has, maintained by the server.
enum SystemFields {
    static let names: Set<String> = [
        "Id", "IsDeleted", "CreatedDate", "CreatedById", "LastModifiedDate", "LastModifiedById", "SystemModstamp",
        "LastViewedDate", "LastReferencedDate",
    ]

    static func definitions(mruEnabled: Bool) -> [FieldDefinition] {
        var fields = [
            FieldDefinition("Id", .id, label: "Record ID", readOnly: true, unique: true),
            FieldDefinition("IsDeleted", .boolean, label: "Deleted", readOnly: true),
            FieldDefinition("CreatedDate", .datetime, readOnly: true),
            FieldDefinition(
                "CreatedById", .reference, label: "Created By ID", readOnly: true, referenceTo: ["User"], relationshipName: "CreatedBy"),
            FieldDefinition("LastModifiedDate", .datetime, readOnly: true),
            FieldDefinition(
                "LastModifiedById", .reference, label: "Last Modified By ID", readOnly: true, referenceTo: ["User"],
                relationshipName: "LastModifiedBy"),
            FieldDefinition("SystemModstamp", .datetime, label: "System Modstamp", readOnly: true),
        ]
        if mruEnabled {
            fields.append(FieldDefinition("LastViewedDate", .datetime, readOnly: true))
            fields.append(FieldDefinition("LastReferencedDate", .datetime, readOnly: true))
        }
        return fields
    }
}
