import FastJSON
@_spi(MSyncInternal) import SalesforceWire

/// The writes of Bulk jobs, both APIs, through the same record writer as REST.
extension RecordAPI {
    /// Writes one record of a Bulk job by its operation: the id written and whether it was
    /// created. A missing record is Salesforce's `ENTITY_IS_DELETED` for a delete and
    /// `INVALID_CROSS_REFERENCE_KEY` otherwise.
    func bulkSave(_ object: ObjectDefinition, job: BulkJob, id text: String?, body: [String: JSONValue]) throws -> (String, Bool) {
        func recordId() throws -> SalesforceId {
            guard let text else { throw APIError(400, "MISSING_ARGUMENT", "Id not specified in an \(job.operation) call", fields: ["Id"]) }
            guard let id = SalesforceId(text) else { throw APIError.malformedId(text) }
            guard id.keyPrefix == object.keyPrefix else { throw APIError(400, "INVALID_CROSS_REFERENCE_KEY", "invalid cross reference id") }
            return id
        }
        do {
            switch job.operation {
            case "insert":
                if text != nil {
                    throw APIError(
                        400, "INVALID_FIELD_FOR_INSERT_UPDATE",
                        "Unable to create/update fields: Id. Please check the security settings of this field and verify that it is read/write for your profile or permission set.",
                        fields: ["Id"])
                }
                return (try writer.create(object, body: body).value, true)
            case "update":
                let id = try recordId()
                try writer.update(object, id: id, body: body)
                return (id.value, false)
            case "upsert":
                let field = job.externalIdField ?? "Id"
                var fields = body
                if field == "Id" {
                    // Without an id, a new record.
                    let value = text == nil ? "" : try recordId().value
                    let (id, created, _) = try upsertRecord(object, field: "Id", value: value, body: fields)
                    return (id.value, created)
                }
                guard let key = fields.first(where: { $0.key == field })?.value.stringValue else {
                    throw APIError(400, "MISSING_ARGUMENT", "\(field) not specified", fields: [field])
                }
                fields[field] = nil
                let (id, created, multiple) = try upsertRecord(object, field: field, value: key, body: fields)
                if multiple != nil {
                    throw APIError(
                        400, "DUPLICATE_EXTERNAL_ID", "\(field): more than one record found for external id field: \(key)", fields: [field])
                }
                return (id.value, created)
            default:
                // delete and hardDelete (hard-deleted records stay visible to queryAll: LocalForce keeps no recycle bin to empty).
                let id = try recordId()
                try writer.delete(object, id: id)
                return (id.value, false)
            }
        } catch let error as APIError where error.errorCode == "NOT_FOUND" {
            throw APIError(
                400, job.operation.hasSuffix("elete") ? "ENTITY_IS_DELETED" : "INVALID_CROSS_REFERENCE_KEY",
                job.operation.hasSuffix("elete") ? "entity is deleted" : "invalid cross reference id")
        }
    }

    /// The id of the live `target` record whose `key` is `value`, for a lookup column.
    func parentId(_ target: ObjectDefinition, key: FieldDefinition, value: String, lookup: FieldDefinition) throws -> String {
        let ids = try writer.ids(target, where: key, equals: try FieldCodec.storage(.string(value), for: key))
        guard ids.count <= 1 else {
            throw APIError(
                400, "DUPLICATE_EXTERNAL_ID", "\(key.name): more than one record found for external id field: \(value)",
                fields: [lookup.name])
        }
        guard let id = ids.first else {
            throw APIError(
                400, "INVALID_FIELD", "Foreign key external ID: \(value) not found for field \(key.name) in entity \(target.name)",
                fields: [lookup.name])
        }
        return id
    }
}
