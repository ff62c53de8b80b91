import FastJSON
import Foundation
@_spi(MSyncInternal) import SalesforceWire

/// What an ingest job's CSV column writes.
enum BulkColumn {
    /// The record's id (update, upsert by Id, delete).
    case id
    /// A field, by its value.
    case field(FieldDefinition)
    /// A lookup set through its parent's external id: `Account.External_Id__c`.
    case parent(FieldDefinition, target: ObjectDefinition, key: FieldDefinition)

    /// The columns of a header, or the name Salesforce fails the job for (`Field name not found`).
    static func resolve(_ header: [String], object: ObjectDefinition, schema: Schema) -> Result<[BulkColumn], BulkJobFailure> {
        var columns: [BulkColumn] = []
        for name in header {
            let trimmed = name.trimmingCharacters(in: .whitespaces)
            if trimmed.lowercased() == "id" {
                columns.append(.id)
                continue
            }
            let parts = trimmed.split(separator: ".", maxSplits: 1).map(String.init)
            if parts.count == 2,
                let lookup = object.fields.first(where: {
                    $0.type == .reference && $0.relationshipName?.lowercased() == parts[0].lowercased()
                }),
                let targetName = lookup.referenceTo.first, let target = schema.object(named: targetName),
                let key = target.field(named: parts[1]), key.externalId || key.name == "Id"
            {
                columns.append(.parent(lookup, target: target, key: key))
                continue
            }
            guard parts.count == 1, let field = object.field(named: trimmed) else {
                return .failure(BulkJobFailure("InvalidBatch : Field name not found : \(trimmed)"))
            }
            columns.append(field.name == "Id" ? .id : .field(field))
        }
        return .success(columns)
    }

    /// A CSV value as the JSON the record writer takes: `#N/A` is null, booleans may be
    /// `true`/`false`, `1`/`0` or `yes`/`no`; a value that is not of the field's type is
    /// Salesforce's `INVALID_TYPE_ON_FIELD_IN_RECORD`.
    static func json(_ text: String, for field: FieldDefinition) throws(APIError) -> JSONValue {
        if text == "#N/A" { return .null }
        let valid: Bool
        switch field.type {
        case .boolean:
            switch text.lowercased() {
            case "true", "1", "yes": return .bool(true)
            case "false", "0", "no": return .bool(false)
            default: valid = false
            }
        case .int: valid = Int64(text) != nil
        case .double, .currency, .percent: valid = Double(text)?.isFinite == true
        case .date: valid = SalesforceTime.isDate(text) || SalesforceTime.parse(text) != nil
        case .datetime: valid = SalesforceTime.parse(text) != nil
        default: valid = true
        }
        guard valid else {
            throw APIError(
                400, "INVALID_TYPE_ON_FIELD_IN_RECORD", "\(field.label): value not of required type: \(text.clippedForMessage)",
                fields: [field.name])
        }
        return .string(text)
    }
}

/// Why a whole job failed: its `errorMessage`.
struct BulkJobFailure: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

extension APIError {
    /// The error as `sf__Error` writes it: `CODE:message:fields --`.
    var bulkText: String {
        "\(errorCode):\(message):\((fields ?? []).joined(separator: ",")) --"
    }
}
