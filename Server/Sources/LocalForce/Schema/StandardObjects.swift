/// The built-in objects: realistic subsets of Salesforce's standard objects (with the
/// activities `Task` and `Event`, whose `What` and `Who` are polymorphic), plus a custom
/// master-detail example (`Invoice__c` / `Invoice_Line__c`) with external id fields.
enum StandardObjects {
    static func owner() -> FieldDefinition {
        FieldDefinition("OwnerId", .reference, label: "Owner ID", referenceTo: ["User"], relationshipName: "Owner")
    }

    static let all: [ObjectDefinition] =
        [
            ObjectDefinition(
                name: "User", keyPrefix: "005",
                fields: [
                    FieldDefinition("Username", .string, length: 80, required: true, unique: true),
                    FieldDefinition("FirstName", .string, length: 40),
                    FieldDefinition("LastName", .string, length: 80, required: true),
                    FieldDefinition("Name", .string, label: "Full Name", length: 121, readOnly: true, isNameField: true),
                    FieldDefinition("Alias", .string, length: 8),
                    FieldDefinition("Email", .email, length: 128),
                    FieldDefinition("IsActive", .boolean, label: "Active", defaultValue: "true"),
                ]),
            ObjectDefinition(
                name: "Account", keyPrefix: "001",
                fields: [
                    FieldDefinition("Name", .string, label: "Account Name", length: 255, required: true, isNameField: true),
                    FieldDefinition("AccountNumber", .string, length: 40),
                    FieldDefinition(
                        "Type", .picklist, label: "Account Type",
                        picklistValues: ["Prospect", "Customer - Direct", "Customer - Channel", "Partner", "Other"]),
                    FieldDefinition(
                        "Industry", .picklist,
                        picklistValues: [
                            "Agriculture", "Banking", "Chemicals", "Energy", "Media", "Retail", "Technology", "Utilities", "Other",
                        ]),
                    FieldDefinition("BillingStreet", .textarea, length: 255),
                    FieldDefinition("BillingCity", .string, length: 40),
                    FieldDefinition("BillingState", .string, length: 80),
                    FieldDefinition("BillingPostalCode", .string, length: 20),
                    FieldDefinition("BillingCountry", .string, length: 80),
                    FieldDefinition("Phone", .phone, label: "Account Phone"),
                    FieldDefinition("Website", .url),
                    FieldDefinition("Description", .textarea, label: "Account Description"),
                    FieldDefinition("NumberOfEmployees", .int, label: "Employees"),
                    FieldDefinition("AnnualRevenue", .currency),
                    FieldDefinition("Rating", .picklist, picklistValues: ["Hot", "Warm", "Cold"]),
                    FieldDefinition(
                        "ParentId", .reference, label: "Parent Account ID", referenceTo: ["Account"], relationshipName: "Parent",
                        childRelationshipName: "ChildAccounts", relationshipKind: .lookup),
                    owner(),
                ]),
            ObjectDefinition(
                name: "Contact", keyPrefix: "003",
                fields: [
                    FieldDefinition("FirstName", .string, length: 40),
                    FieldDefinition("LastName", .string, length: 80, required: true),
                    FieldDefinition("Name", .string, label: "Full Name", length: 121, readOnly: true, isNameField: true),
                    FieldDefinition(
                        "AccountId", .reference, label: "Account ID", referenceTo: ["Account"], relationshipName: "Account",
                        childRelationshipName: "Contacts", relationshipKind: .lookup),
                    FieldDefinition("Title", .string, length: 128),
                    FieldDefinition("Department", .string, length: 80),
                    FieldDefinition("Email", .email),
                    FieldDefinition("Phone", .phone, label: "Business Phone"),
                    FieldDefinition("MobilePhone", .phone),
                    FieldDefinition("MailingCity", .string, length: 40),
                    FieldDefinition("MailingCountry", .string, length: 80),
                    FieldDefinition("Birthdate", .date),
                    FieldDefinition("LeadSource", .picklist, picklistValues: ["Web", "Phone Inquiry", "Partner Referral", "Other"]),
                    FieldDefinition("Description", .textarea, label: "Contact Description"),
                    owner(),
                ]),
            ObjectDefinition(
                name: "Opportunity", labelPlural: "Opportunities", keyPrefix: "006",
                fields: [
                    FieldDefinition("Name", .string, label: "Opportunity Name", length: 120, required: true, isNameField: true),
                    FieldDefinition(
                        "AccountId", .reference, label: "Account ID", referenceTo: ["Account"], relationshipName: "Account",
                        childRelationshipName: "Opportunities", relationshipKind: .lookup),
                    FieldDefinition(
                        "StageName", .picklist, label: "Stage", required: true,
                        picklistValues: ["Prospecting", "Qualification", "Proposal", "Negotiation", "Closed Won", "Closed Lost"]),
                    FieldDefinition("CloseDate", .date, required: true),
                    FieldDefinition("Amount", .currency),
                    FieldDefinition("Probability", .percent, label: "Probability (%)"),
                    FieldDefinition(
                        "Type", .picklist, label: "Opportunity Type", picklistValues: ["New Customer", "Existing Customer - Upgrade"]),
                    FieldDefinition("LeadSource", .picklist, picklistValues: ["Web", "Phone Inquiry", "Partner Referral", "Other"]),
                    FieldDefinition("Description", .textarea),
                    owner(),
                ]),
            ObjectDefinition(
                name: "Case", keyPrefix: "500",
                fields: [
                    FieldDefinition("CaseNumber", .string, label: "Case Number", length: 30, readOnly: true, isNameField: true),
                    FieldDefinition("Subject", .string),
                    FieldDefinition("Description", .textarea),
                    FieldDefinition("Status", .picklist, defaultValue: "New", picklistValues: ["New", "Working", "Escalated", "Closed"]),
                    FieldDefinition("Priority", .picklist, defaultValue: "Medium", picklistValues: ["High", "Medium", "Low"]),
                    FieldDefinition("Origin", .picklist, label: "Case Origin", picklistValues: ["Phone", "Email", "Web"]),
                    FieldDefinition(
                        "AccountId", .reference, label: "Account ID", referenceTo: ["Account"], relationshipName: "Account",
                        childRelationshipName: "Cases", relationshipKind: .lookup),
                    FieldDefinition(
                        "ContactId", .reference, label: "Contact ID", referenceTo: ["Contact"], relationshipName: "Contact",
                        childRelationshipName: "Cases", relationshipKind: .lookup),
                    owner(),
                ]),
            ObjectDefinition(
                name: "Lead", keyPrefix: "00Q",
                fields: [
                    FieldDefinition("FirstName", .string, length: 40),
                    FieldDefinition("LastName", .string, length: 80, required: true),
                    FieldDefinition("Name", .string, label: "Full Name", length: 121, readOnly: true, isNameField: true),
                    FieldDefinition("Company", .string, required: true),
                    FieldDefinition("Title", .string, length: 128),
                    FieldDefinition("Email", .email),
                    FieldDefinition("Phone", .phone),
                    FieldDefinition(
                        "Status", .picklist, label: "Lead Status", required: true, defaultValue: "Open - Not Contacted",
                        picklistValues: ["Open - Not Contacted", "Working - Contacted", "Closed - Converted", "Closed - Not Converted"]),
                    FieldDefinition("Industry", .picklist),
                    FieldDefinition("LeadSource", .picklist),
                    owner(),
                ]),
            ObjectDefinition(
                name: "Invoice__c", label: "Invoice", keyPrefix: "a00",
                fields: [
                    FieldDefinition("Name", .string, label: "Invoice Name", length: 80, required: true, isNameField: true),
                    FieldDefinition("Invoice_Number__c", .string, label: "Invoice Number", length: 40, externalId: true, unique: true),
                    FieldDefinition(
                        "Account__c", .reference, label: "Account", referenceTo: ["Account"], relationshipName: "Account__r",
                        childRelationshipName: "Invoices__r", relationshipKind: .lookup),
                    FieldDefinition(
                        "Status__c", .picklist, label: "Status", defaultValue: "Draft", picklistValues: ["Draft", "Sent", "Paid"]),
                    FieldDefinition("Due_Date__c", .date, label: "Due Date"),
                    FieldDefinition("Total__c", .currency, label: "Total"),
                    owner(),
                ]),
            ObjectDefinition(
                name: "Invoice_Line__c", label: "Invoice Line", keyPrefix: "a01",
                fields: [
                    FieldDefinition("Name", .string, label: "Line Name", length: 80, required: true, isNameField: true),
                    FieldDefinition(
                        "Invoice__c", .reference, label: "Invoice", required: true, referenceTo: ["Invoice__c"],
                        relationshipName: "Invoice__r", childRelationshipName: "Invoice_Lines__r", relationshipKind: .masterDetail),
                    FieldDefinition("Line_Key__c", .string, label: "Line Key", length: 40, externalId: true, unique: true),
                    FieldDefinition("Product__c", .string, label: "Product"),
                    FieldDefinition("Quantity__c", .double, label: "Quantity"),
                    FieldDefinition("Amount__c", .currency, label: "Amount"),
                ], mruEnabled: false),
        ] + activities + [PushTopics.definition]
}
