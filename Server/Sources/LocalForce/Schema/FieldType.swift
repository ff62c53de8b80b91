/// The field types LocalForce models, with Salesforce's describe names.
public enum FieldType: String, Sendable, Codable, CaseIterable {
    case id, string, textarea, boolean, int, double, currency, percent, date, datetime, email, phone, url, picklist, multipicklist,
        reference

    /// `soapType` in describe.
    var soapType: String {
        switch self {
        case .id, .reference: "tns:ID"
        case .boolean: "xsd:boolean"
        case .int: "xsd:int"
        case .double, .currency, .percent: "xsd:double"
        case .date: "xsd:date"
        case .datetime: "xsd:dateTime"
        default: "xsd:string"
        }
    }

    /// Text-like types: compared case-insensitively, searchable, LIKE-able.
    var isText: Bool {
        switch self {
        case .string, .textarea, .email, .phone, .url, .picklist, .multipicklist: true
        default: false
        }
    }

    var isNumber: Bool { self == .int || self == .double || self == .currency || self == .percent }
}
