public import FastJSON
public import SmartStore

/// The SDK's JSON form of a query spec: the `querySpec` dictionaries the hybrid and React Native
/// bridges send (`queryType`, `indexPath`, `matchKey`, `beginKey`, `endKey`, `likeKey`,
/// `smartSql`, `selectPaths`, `orderPath`, `order`, `pageSize`).
///
/// <!-- snippet: Snippets/MobileSyncSDKCompatReference.swift#sdkJSON -->
/// ```swift
/// let fromSDK = try QuerySpec(sdkJSON: ["queryType": "range", "indexPath": "Name", "beginKey": "A",
///                                       "order": "descending", "pageSize": 25], soupName: "accounts")
/// let queryType = fromSDK.sdkJSON["queryType"]  // "range"
/// ```
extension QuerySpec {
    /// The SDK's page size when `pageSize` is absent or not positive.
    public static let sdkDefaultPageSize = 10

    /// A spec from its SDK JSON, for `soupName` (by default the JSON's own `soupName`, which the
    /// SDK passes beside it; a smart query needs none).
    ///
    /// As the SDK reads it: an exact query's value is `matchKey`; a range query without
    /// `indexPath` is every entry; `order` is `ascending` unless it says `descending`; a
    /// `pageSize` that is absent or not positive is `sdkDefaultPageSize`.
    ///
    /// - Throws: `SmartStoreError.invalidQuerySpec(_:)` for a `queryType` other than exact,
    ///   range, like, match and smart, a missing soup, path, key or Smart SQL, or keys of the
    ///   wrong JSON type.
    public init(sdkJSON json: JSONValue, soupName: String? = nil) throws {
        guard let object = json.objectValue else { throw SmartStoreError.invalidQuerySpec("A query spec must be a JSON object") }
        let members = SDKMembers(members: object)
        let selectPaths = try members.selectPaths()
        let pageSize = object["pageSize"]?.int64Value.flatMap { $0 > 0 ? Int(clamping: $0) : nil } ?? Self.sdkDefaultPageSize
        let order: Order = try members.string("order") == "descending" ? .descending : .ascending
        let common = (
            selectPaths: selectPaths, path: try members.string("indexPath"), orderPath: try members.string("orderPath"), order: order
        )
        let queryType = try members.string("queryType") ?? ""
        if queryType == Kind.smart.rawValue {
            guard let smartSql = try members.string("smartSql") else {
                throw SmartStoreError.invalidQuerySpec("A smart query needs smartSql")
            }
            self = .smart(smartSql, pageSize: pageSize)
            return
        }
        guard let soup = try soupName ?? members.string("soupName") else {
            throw SmartStoreError.invalidQuerySpec("A \(queryType) query needs a soup name")
        }
        func required<T>(_ value: T?, _ name: String) throws -> T {
            guard let value else { throw SmartStoreError.invalidQuerySpec("A \(queryType) query needs \(name)") }
            return value
        }
        switch queryType {
        case Kind.exact.rawValue:
            self = .exact(
                soup: soup, selectPaths: common.selectPaths, path: try required(common.path, "indexPath"),
                key: try required(try members.key("matchKey"), "matchKey"), orderPath: common.orderPath, order: common.order,
                pageSize: pageSize)
        case Kind.range.rawValue:
            let (begin, end) = (try members.key("beginKey"), try members.key("endKey"))
            if let path = common.path {
                self = .range(
                    soup: soup, selectPaths: common.selectPaths, path: path, begin: begin, end: end, orderPath: common.orderPath,
                    order: common.order, pageSize: pageSize)
            } else {
                self = .all(
                    soup: soup, selectPaths: common.selectPaths, orderPath: common.orderPath, order: common.order, pageSize: pageSize)
            }
        case Kind.like.rawValue:
            self = .like(
                soup: soup, selectPaths: common.selectPaths, path: try required(common.path, "indexPath"),
                pattern: try required(try members.string("likeKey"), "likeKey"), orderPath: common.orderPath, order: common.order,
                pageSize: pageSize)
        case Kind.match.rawValue:
            self = .match(
                soup: soup, selectPaths: common.selectPaths, path: common.path,
                key: try required(try members.string("matchKey"), "matchKey"),
                orderPath: common.orderPath, order: common.order, pageSize: pageSize)
        default:
            throw SmartStoreError.invalidQuerySpec("Invalid queryType: '\(queryType)'")
        }
    }

    /// The members of an SDK query spec, read with their types checked.
    private struct SDKMembers {
        let members: [String: JSONValue]

        /// A string member; nil when absent or null.
        func string(_ key: String) throws -> String? {
            switch members[key] {
            case nil, .null?: return nil
            case .string(let value)?: return value
            default: throw SmartStoreError.invalidQuerySpec("\(key) must be a string")
            }
        }

        /// A key (`matchKey`, `beginKey`, `endKey`): any scalar; nil when absent or null.
        func key(_ key: String) throws -> JSONValue? {
            switch members[key] {
            case nil, .null?: return nil
            case let value? where value.objectValue == nil && value.arrayValue == nil: return value
            default: throw SmartStoreError.invalidQuerySpec("\(key) must be a string, a number or a boolean")
            }
        }

        /// `selectPaths`: strings; nil when absent or null.
        func selectPaths() throws -> [String]? {
            switch members["selectPaths"] {
            case nil, .null?: return nil
            case .array(let paths)?:
                return try paths.map { path in
                    guard let path = path.stringValue else { throw SmartStoreError.invalidQuerySpec("selectPaths must hold strings") }
                    return path
                }
            default: throw SmartStoreError.invalidQuerySpec("selectPaths must be an array of strings")
            }
        }
    }

    /// The spec in the SDK's JSON form (its `asDictionary`), with `soupName` and `selectPaths`
    /// added when set, so that `init(sdkJSON:soupName:)` reads it back whole.
    public var sdkJSON: JSONValue {
        var members: [String: JSONValue] = [
            "queryType": .string(kind.rawValue), "pageSize": .int(Int64(pageSize)), "order": .string(order.rawValue),
        ]
        if let path { members["indexPath"] = .string(path) }
        if let orderPath { members["orderPath"] = .string(orderPath) }
        if let soupName { members["soupName"] = .string(soupName) }
        if let selectPaths { members["selectPaths"] = .array(selectPaths.map(JSONValue.string)) }
        switch kind {
        case .exact: members["matchKey"] = beginKey
        case .range:
            if let beginKey { members["beginKey"] = beginKey }
            if let endKey { members["endKey"] = endKey }
        case .like: members["likeKey"] = likeKey.map(JSONValue.string)
        case .match: members["matchKey"] = matchKey.map(JSONValue.string)
        case .smart: members["smartSql"] = .string(smartSql)
        }
        return .object(members)
    }
}
