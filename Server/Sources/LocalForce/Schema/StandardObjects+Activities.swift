extension StandardObjects {
    /// `WhatId`: the record an activity is about (polymorphic, read with `TYPEOF What`).
    private static func what(children: String) -> FieldDefinition {
        FieldDefinition(
            "WhatId", .reference, label: "Related To ID", referenceTo: ["Account", "Opportunity", "Case"], relationshipName: "What",
            childRelationshipName: children, relationshipKind: .lookup)
    }

    /// `WhoId`: the person an activity is with (polymorphic: a contact or a lead).
    private static func who(children: String) -> FieldDefinition {
        FieldDefinition(
            "WhoId", .reference, label: "Name ID", referenceTo: ["Contact", "Lead"], relationshipName: "Who",
            childRelationshipName: children, relationshipKind: .lookup)
    }

    /// Task and Event, with Salesforce's key prefixes.
    static let activities: [ObjectDefinition] = [
        ObjectDefinition(
            name: "Task", keyPrefix: "00T",
            fields: [
                FieldDefinition("Subject", .string, isNameField: true),
                FieldDefinition(
                    "Status", .picklist, required: true, defaultValue: "Not Started",
                    picklistValues: ["Not Started", "In Progress", "Completed", "Waiting on someone else", "Deferred"]),
                FieldDefinition("Priority", .picklist, required: true, defaultValue: "Normal", picklistValues: ["High", "Normal", "Low"]),
                FieldDefinition("ActivityDate", .date, label: "Due Date Only"),
                FieldDefinition("Description", .textarea, label: "Comments"),
                who(children: "Tasks"), what(children: "Tasks"), owner(),
            ]),
        ObjectDefinition(
            name: "Event", keyPrefix: "00U",
            fields: [
                FieldDefinition("Subject", .string, isNameField: true),
                FieldDefinition("StartDateTime", .datetime, label: "Start Date Time"),
                FieldDefinition("EndDateTime", .datetime, label: "End Date Time"),
                FieldDefinition("DurationInMinutes", .int, label: "Duration"),
                FieldDefinition("Location", .string),
                FieldDefinition("Description", .textarea),
                who(children: "Events"), what(children: "Events"), owner(),
            ]),
    ]
}
