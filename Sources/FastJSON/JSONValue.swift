/// A JSON document: the value type records are made of.
///
/// Soups hold JSON objects. `JSONValue` is small, `Sendable`, `Hashable`, and has
/// its own parser and UTF-8 writer, so the store never goes through `JSONSerialization`
/// (which is several times slower on Linux).
///
/// <!-- snippet: Snippets/SalesforceReference.swift#jsonValue -->
/// ```swift
/// let account: JSONValue = ["Id": "001xx", "Name": "Acme", "NumberOfEmployees": 12]
/// let name = account["Name"]?.stringValue  // "Acme"
/// ```
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// An integral number that fits in 64 bits.
    case int(Int64)
    /// Any other number.
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
}

extension JSONValue {
    /// The members of an object, or `nil` for other kinds.
    public var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The elements of an array, or `nil` for other kinds.
    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The string, or `nil` for other kinds.
    public var stringValue: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    /// The boolean, or `nil` for other kinds.
    public var boolValue: Bool? {
        if case .bool(let bool) = self { return bool }
        return nil
    }

    /// The number as an integer (doubles are truncated), or `nil` for other kinds.
    public var int64Value: Int64? {
        switch self {
        case .int(let int): return int
        case .double(let double) where double.isFinite && abs(double) < 9.2e18: return Int64(double)
        default: return nil
        }
    }

    /// The number as a double, or `nil` for other kinds.
    public var doubleValue: Double? {
        switch self {
        case .int(let int): return Double(int)
        case .double(let double): return double
        default: return nil
        }
    }

    /// `true` for `.null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The member named `key` of an object; `nil` when absent or when this is not an object.
    ///
    /// Setting a member of a non-object does nothing; setting `nil` removes the member.
    public subscript(key: String) -> JSONValue? {
        get { objectValue?[key] }
        set {
            guard case .object(var members) = self else { return }
            self = .null // release the storage so the dictionary is mutated in place
            members[key] = newValue
            self = .object(members)
        }
    }
}
