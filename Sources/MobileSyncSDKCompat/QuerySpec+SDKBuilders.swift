public import SmartStore

/// The SDK's `QuerySpec` builders (`buildExactQuerySpec(soupName:path:matchKey:orderPath:order:pageSize:)`
/// and the rest), over SmartStore's `QuerySpec.exact(…)`, `range(…)`, `like(…)`, `match(…)`,
/// `all(…)` and `smart(…)`. Page sizes are `UInt`, as the SDK's; the forms with `selectPaths`
/// are optional, as the SDK's, and nil for a select path that is not a string.
extension QuerySpec {
    /// The SDK's name of the sort order (`.ascending`, `.descending`).
    public typealias SortOrder = Order
    /// The SDK's name of the query's kind (`.exact`, `.range`, `.like`, `.match`, `.smart`).
    public typealias QueryType = Kind

    /// The query's kind, by the SDK's name.
    public var queryType: QueryType { kind }

    /// The spec as the SDK's dictionary (`queryType`, `indexPath`, `matchKey`…; see `sdkJSON`).
    public func asDictionary() -> [AnyHashable: Any] { SmartStore.entry(sdkJSON) }

    /// Entries whose `path` equals `matchKey`.
    public static func buildExactQuerySpec(
        soupName: String, path: String, matchKey: String, orderPath: String, order: SortOrder, pageSize: UInt
    ) -> QuerySpec {
        .exact(soup: soupName, path: path, key: .string(matchKey), orderPath: orderPath, order: order, pageSize: Int(clamping: pageSize))
    }

    /// Entries whose `path` equals `matchKey`, with only `selectPaths` (nil: whole entries).
    public static func buildExactQuerySpec(
        soupName: String, selectPaths: [Any]?, path: String, matchKey: String, orderPath: String, order: SortOrder, pageSize: UInt
    ) -> QuerySpec? {
        paths(selectPaths).map {
            .exact(
                soup: soupName, selectPaths: $0, path: path, key: .string(matchKey), orderPath: orderPath, order: order,
                pageSize: Int(clamping: pageSize))
        }
    }

    /// Entries whose `path` is `LIKE` `likeKey`.
    public static func buildLikeQuerySpec(
        soupName: String, path: String, likeKey: String, orderPath: String, order: SortOrder, pageSize: UInt
    ) -> QuerySpec {
        .like(soup: soupName, path: path, pattern: likeKey, orderPath: orderPath, order: order, pageSize: Int(clamping: pageSize))
    }

    /// Entries whose `path` is `LIKE` `likeKey`, with only `selectPaths`.
    public static func buildLikeQuerySpec(
        soupName: String, selectPaths: [Any]?, path: String, likeKey: String, orderPath: String, order: SortOrder, pageSize: UInt
    ) -> QuerySpec? {
        paths(selectPaths).map {
            .like(
                soup: soupName, selectPaths: $0, path: path, pattern: likeKey, orderPath: orderPath, order: order,
                pageSize: Int(clamping: pageSize))
        }
    }

    /// Entries whose `path` lies between `beginKey` and `endKey`.
    public static func buildRangeQuerySpec(
        soupName: String, path: String, beginKey: String, endKey: String, orderPath: String, order: SortOrder, pageSize: UInt
    ) -> QuerySpec {
        .range(
            soup: soupName, path: path, begin: .string(beginKey), end: .string(endKey), orderPath: orderPath, order: order,
            pageSize: Int(clamping: pageSize))
    }

    /// Entries whose `path` lies between the keys (either may be nil), with only `selectPaths`;
    /// with no path, every entry.
    public static func buildRangeQuerySpec(
        soupName: String, selectPaths: [Any]?, path: String?, beginKey: String?, endKey: String?, orderPath: String,
        order: SortOrder, pageSize: UInt
    ) -> QuerySpec? {
        paths(selectPaths).map { paths in
            guard let path else {
                return .all(soup: soupName, selectPaths: paths, orderPath: orderPath, order: order, pageSize: Int(clamping: pageSize))
            }
            return .range(
                soup: soupName, selectPaths: paths, path: path, begin: beginKey.map(JSONValue.string),
                end: endKey.map(JSONValue.string), orderPath: orderPath, order: order, pageSize: Int(clamping: pageSize))
        }
    }

    /// Every entry of a soup.
    public static func buildAllQuerySpec(soupName: String, orderPath: String, order: SortOrder, pageSize: UInt) -> QuerySpec {
        .all(soup: soupName, orderPath: orderPath, order: order, pageSize: Int(clamping: pageSize))
    }

    /// Every entry of a soup, with only `selectPaths` (a select path that is not a string is
    /// left out: the SDK's form is not optional).
    public static func buildAllQuerySpec(
        soupName: String, selectPaths: [Any]?, orderPath: String, order: SortOrder, pageSize: UInt
    ) -> QuerySpec {
        .all(
            soup: soupName, selectPaths: selectPaths?.compactMap { $0 as? String }, orderPath: orderPath, order: order,
            pageSize: Int(clamping: pageSize))
    }

    /// Full-text matches of `matchKey` on `path`.
    public static func buildMatchQuerySpec(
        soupName: String, path: String, matchKey: String, orderPath: String, order: SortOrder, pageSize: UInt
    ) -> QuerySpec {
        .match(soup: soupName, path: path, key: matchKey, orderPath: orderPath, order: order, pageSize: Int(clamping: pageSize))
    }

    /// Full-text matches of `matchKey` on `path`, with only `selectPaths`.
    public static func buildMatchQuerySpec(
        soupName: String, selectPaths: [Any]?, path: String, matchKey: String, orderPath: String, order: SortOrder, pageSize: UInt
    ) -> QuerySpec? {
        paths(selectPaths).map {
            .match(
                soup: soupName, selectPaths: $0, path: path, key: matchKey, orderPath: orderPath, order: order,
                pageSize: Int(clamping: pageSize))
        }
    }

    /// A Smart SQL query; optional, as the SDK's (never nil here: the SQL is checked when it runs).
    public static func buildSmartQuerySpec(smartSql: String, pageSize: UInt) -> QuerySpec? {
        .smart(smartSql, pageSize: Int(clamping: pageSize))
    }

    /// Select paths as strings; nil (the whole spec refused) when one is not a string.
    private static func paths(_ selectPaths: [Any]?) -> [String]?? {
        guard let selectPaths else { return .some(nil) }
        let strings = selectPaths.compactMap { $0 as? String }
        return strings.count == selectPaths.count ? .some(strings) : nil
    }
}
