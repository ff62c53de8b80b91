import FastJSON
import SalesforceWire

/// Converts field values between JSON (the wire) and ``SQLValue`` (storage), per field type.
///
/// Storage: text types, ids and dates as text (`YYYY-MM-DD` sorts correctly), booleans as
/// 0/1, numbers as integers or reals, datetimes as milliseconds since 1970 (so comparisons
/// and ordering are numeric, and output always has the `.SSS+0000` shape).
enum FieldCodec {
    /// The JSON body value for `field` as storage, or the Salesforce error for a bad value.
    static func storage(_ value: JSONValue, for field: FieldDefinition) throws(APIError) -> SQLValue {
        if value.isNull { return .null }
        switch field.type {
        case .id, .reference:
            guard let text = value.stringValue else { throw mismatch(field, value) }
            if text.isEmpty { return .null }
            guard let id = SalesforceId(text) else { throw APIError.malformedId(text, field: field.name, label: field.label) }
            return .text(id.value)
        case .string, .textarea, .email, .phone, .url, .picklist, .multipicklist: return try textStorage(value, for: field)
        case .boolean:
            switch value {
            case .bool(let bool): return .integer(bool ? 1 : 0)
            case .string(let string) where string.lowercased() == "true" || string.lowercased() == "false":
                return .integer(string.lowercased() == "true" ? 1 : 0)
            default: throw mismatch(field, value)
            }
        case .int:
            switch value {
            case .int(let int): return .integer(int)
            case .double(let double) where double.rounded() == double && abs(double) < 9e15: return .integer(Int64(double))
            case .string(let string): if let int = Int64(string) { return .integer(int) }
            default: break
            }
            throw mismatch(field, value)
        case .double, .currency, .percent:
            switch value {
            case .int(let int): return .real(Double(int))
            case .double(let double) where double.isFinite: return .real(double)
            case .string(let string): if let double = Double(string), double.isFinite { return .real(double) }
            default: break
            }
            throw mismatch(field, value)
        case .date:
            guard let text = value.stringValue else { throw mismatch(field, value) }
            if SalesforceTime.isDate(text) { return .text(text) }
            if let millis = SalesforceTime.parse(text) { return .text(SalesforceTime.formatDate(days: millis / 86_400_000)) }
            throw APIError.jsonParser(
                "Cannot deserialize value of type `Date` from String \"\(text.clippedForMessage)\": expected format \"yyyy-MM-dd\"")
        case .datetime:
            guard let text = value.stringValue else { throw mismatch(field, value) }
            guard let millis = SalesforceTime.parse(text) else {
                throw APIError.jsonParser(
                    "Cannot deserialize value of type `DateTime` from String \"\(text.clippedForMessage)\": expected ISO-8601 format")
            }
            return .integer(millis)
        }
    }

    /// A text field's value: a string (or a scalar written as text) within the field's length,
    /// without NUL, a valid address for an email field; empty is NULL.
    private static func textStorage(_ value: JSONValue, for field: FieldDefinition) throws(APIError) -> SQLValue {
        let text: String
        switch value {
        case .string(let string): text = string
        case .int(let int): text = String(int)
        case .double(let double): text = String(double)
        case .bool(let bool): text = bool ? "true" : "false"
        default: throw mismatch(field, value)
        }
        if text.count > field.length {
            throw APIError(
                400, "STRING_TOO_LONG", "\(field.label): data value too large: \(text.clippedForMessage) (max length=\(field.length))",
                fields: [field.name])
        }
        // SQLite and PostgreSQL text ends at a NUL: refuse what could not be stored exactly.
        if text.utf8.contains(0) {
            throw APIError.jsonParser("\(field.label): text may not contain the NUL character (\\u0000)", fields: [field.name])
        }
        if field.type == .email, !text.isEmpty, !isEmail(text) {
            throw APIError(400, "INVALID_EMAIL_ADDRESS", "\(field.label): invalid email address: \(text)", fields: [field.name])
        }
        return text.isEmpty ? .null : .text(text)
    }

    /// Writes a stored value as JSON.
    static func write(_ value: SQLValue, for type: FieldType, to writer: inout JSONWriter) {
        writer.write(json(value, for: type))
    }

    /// A stored value as JSON.
    static func json(_ value: SQLValue, for type: FieldType) -> JSONValue {
        switch (type, value) {
        case (_, .null): return .null
        case (.boolean, let stored): return .bool((stored.integer ?? 0) != 0)
        case (.int, .integer(let int)): return .int(int)
        case (.int, .real(let double)): return Int64(exactly: double.rounded(.towardZero)).map(JSONValue.int) ?? .double(double)
        case (.double, .integer(let int)), (.currency, .integer(let int)), (.percent, .integer(let int)): return .double(Double(int))
        case (.double, .real(let double)), (.currency, .real(let double)), (.percent, .real(let double)): return .double(double)
        case (.datetime, .integer(let millis)): return .string(SalesforceTime.format(millis))
        case (_, .text(let text)): return .string(text)
        case (_, .integer(let int)): return .int(int)
        case (_, .real(let double)): return .double(double)
        }
    }

    private static func mismatch(_ field: FieldDefinition, _ value: JSONValue) -> APIError {
        let token: String
        switch value {
        case .string: token = "VALUE_STRING"
        case .int: token = "VALUE_NUMBER_INT"
        case .double: token = "VALUE_NUMBER_FLOAT"
        case .bool(let bool): token = bool ? "VALUE_TRUE" : "VALUE_FALSE"
        case .array: token = "START_ARRAY"
        case .object: token = "START_OBJECT"
        case .null: token = "VALUE_NULL"
        }
        return APIError.jsonParser(
            "Cannot deserialize instance of \(field.type.rawValue) from \(token) value \(value.jsonString.clippedForMessage) or request may be missing a required field"
        )
    }

    private static func isEmail(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".") && !parts[1].hasPrefix(".") && !parts[1].hasSuffix(".")
            && !text.contains(" ")
    }
}
