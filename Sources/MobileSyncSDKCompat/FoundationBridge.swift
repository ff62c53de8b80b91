import FastJSON
import Foundation
import SmartStore

/// JSON values as the SDK hands them out, and the Foundation values an SDK app hands in.
///
/// Out: numbers and booleans are `NSNumber`s, as `JSONSerialization` makes them on iOS, so that
/// `as? Int`, `as? Double` and `as? Bool` succeed where they do there (`1` is also `true` and
/// `1.0`; `2` is no `Bool`); objects are `[String: Any]`, arrays `[Any]`, null `NSNull`.
/// In: any of those, Swift's own numbers, strings and optionals; anything else (a `Date`, a
/// non-finite number, a key that is not a string, nesting deeper than 512) is
/// `SmartStoreError.malformedJSON(_:)`.
enum FoundationBridge {
    static let maximumDepth = 512
    /// The class of a boolean `NSNumber` (`__NSCFBoolean` on every platform).
    private static let booleanType = type(of: NSNumber(value: true))

    /// `value` as Foundation values.
    static func foundation(_ value: JSONValue) -> Any {
        switch value {
        case .null: NSNull()
        case .bool(let bool): NSNumber(value: bool)
        case .int(let int): NSNumber(value: int)
        case .double(let double): NSNumber(value: double)
        case .string(let string): string
        case .array(let items): items.map(foundation)
        case .object(let members): members.mapValues(foundation)
        }
    }

    /// `value` (Foundation or Swift values) as JSON.
    static func json(_ value: Any, depth: Int = 0) throws -> JSONValue {
        guard depth <= maximumDepth else { throw SmartStoreError.malformedJSON("Nesting deeper than \(maximumDepth)") }
        if let string = value as? String { return .string(string) }
        if let native = try swiftScalar(value) { return native }
        if value is NSNull { return .null }
        if let number = value as? NSNumber { return try json(number) }
        if let object = value as? [String: Any] { return .object(try object.mapValues { try json($0, depth: depth + 1) }) }
        if let object = value as? [AnyHashable: Any] {
            var members: [String: JSONValue] = [:]
            for (key, member) in object {
                guard let key = key.base as? String else { throw SmartStoreError.malformedJSON("A key that is no string: \(key)") }
                members[key] = try json(member, depth: depth + 1)
            }
            return .object(members)
        }
        if let items = value as? [Any] { return .array(try items.map { try json($0, depth: depth + 1) }) }
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            guard let wrapped = mirror.children.first?.value else { return .null }
            return try json(wrapped, depth: depth + 1)
        }
        throw SmartStoreError.malformedJSON("Not a JSON value: \(type(of: value))")
    }

    /// A Swift number or boolean by its own type (an `NSNumber` casts to every one of them).
    private static func swiftScalar(_ value: Any) throws -> JSONValue? {
        switch value {
        case let bool as Bool where type(of: value) == Bool.self: return .bool(bool)
        case let int as Int where type(of: value) == Int.self: return .int(Int64(int))
        case let int as Int64 where type(of: value) == Int64.self: return .int(int)
        case let int as Int32 where type(of: value) == Int32.self: return .int(Int64(int))
        case let int as UInt where type(of: value) == UInt.self: return try unsigned(UInt64(int))
        case let int as UInt64 where type(of: value) == UInt64.self: return try unsigned(int)
        case let double as Double where type(of: value) == Double.self: return try finite(double)
        case let float as Float where type(of: value) == Float.self: return try finite(Double(float))
        default: return nil
        }
    }

    private static func json(_ number: NSNumber) throws -> JSONValue {
        if type(of: number) == booleanType { return .bool(number.boolValue) }
        switch String(cString: number.objCType) {
        case "f", "d": return try finite(number.doubleValue)
        case "Q", "L": return try unsigned(number.uint64Value)
        default: return .int(number.int64Value)
        }
    }

    private static func unsigned(_ value: UInt64) throws -> JSONValue {
        guard let int = Int64(exactly: value) else { throw SmartStoreError.malformedJSON("A number beyond Int64: \(value)") }
        return .int(int)
    }

    private static func finite(_ value: Double) throws -> JSONValue {
        guard value.isFinite else { throw SmartStoreError.malformedJSON("A number that is not finite: \(value)") }
        return .double(value)
    }
}
