import Foundation
import MobileSyncSDKCompat

#if canImport(Combine)
    import Combine
#endif

/// The SDK's QuerySpec members, each spelled as an SDK app spells it (see `SDKMemberTableTests`).
extension SDKMemberTableTests {
    static var querySpec: [(member: String, use: Any)] {
        typealias Uses = (QuerySpec) -> Void
        let constants: [(String, String)] = [
            ("kQuerySpecSortOrderAscending", kQuerySpecSortOrderAscending),
            ("kQuerySpecSortOrderDescending", kQuerySpecSortOrderDescending),
            ("kQuerySpecTypeExact", kQuerySpecTypeExact), ("kQuerySpecTypeRange", kQuerySpecTypeRange),
            ("kQuerySpecTypeLike", kQuerySpecTypeLike),
            ("kQuerySpecTypeSmart", kQuerySpecTypeSmart), ("kQuerySpecTypeMatch", kQuerySpecTypeMatch),
            ("kQuerySpecParamQueryType", kQuerySpecParamQueryType), ("kQuerySpecParamSelectPaths", kQuerySpecParamSelectPaths),
            ("kQuerySpecParamIndexPath", kQuerySpecParamIndexPath), ("kQuerySpecParamOrder", kQuerySpecParamOrder),
            ("kQuerySpecParamPageSize", kQuerySpecParamPageSize), ("kQuerySpecParamOrderPath", kQuerySpecParamOrderPath),
            ("kQuerySpecParamMatchKey", kQuerySpecParamMatchKey), ("kQuerySpecParamBeginKey", kQuerySpecParamBeginKey),
            ("kQuerySpecParamEndKey", kQuerySpecParamEndKey), ("kQuerySpecParamLikeKey", kQuerySpecParamLikeKey),
            ("kQuerySpecParamSmartSql", kQuerySpecParamSmartSql),
        ]
        let order = QuerySpec.SortOrder.ascending
        return constants.map { ($0.0, $0.1 as Any) } + [
            ("kQuerySpecDefaultPageSize", { let _: UInt = kQuerySpecDefaultPageSize } as () -> Void),
            ("QuerySpec.QueryType", { let _: QuerySpec.QueryType = .smart } as () -> Void),
            ("QuerySpec.SortOrder", { let _: QuerySpec.SortOrder = .descending } as () -> Void),
            ("QuerySpec.queryType", { q in let _: QuerySpec.QueryType = q.queryType } as Uses),
            ("QuerySpec.smartSql", { q in let _: String = q.smartSql } as Uses),
            ("QuerySpec.countSmartSql", { q in let _: String = q.countSmartSql } as Uses),
            ("QuerySpec.idsSmartSql", { q in let _: String = q.idsSmartSql } as Uses),
            ("QuerySpec.selectPaths", { q in let _: [Any]? = q.selectPaths } as Uses),
            ("QuerySpec.order", { q in let _: QuerySpec.SortOrder = q.order } as Uses),
            (
                "QuerySpec.buildExactQuerySpec(soupName:path:matchKey:orderPath:order:pageSize:)",
                {
                    let _: QuerySpec = .buildExactQuerySpec(
                        soupName: "a", path: "p", matchKey: "k", orderPath: "p", order: order, pageSize: 10)
                } as () -> Void
            ),
            (
                "QuerySpec.buildExactQuerySpec(soupName:selectPaths:path:matchKey:orderPath:order:pageSize:)",
                {
                    let _: QuerySpec? = .buildExactQuerySpec(
                        soupName: "a", selectPaths: ["p"], path: "p", matchKey: "k", orderPath: "p", order: order, pageSize: 10)
                } as () -> Void
            ),
            (
                "QuerySpec.buildLikeQuerySpec(soupName:path:likeKey:orderPath:order:pageSize:)",
                {
                    let _: QuerySpec = .buildLikeQuerySpec(
                        soupName: "a", path: "p", likeKey: "k%", orderPath: "p", order: order, pageSize: 10)
                } as () -> Void
            ),
            (
                "QuerySpec.buildLikeQuerySpec(soupName:selectPaths:path:likeKey:orderPath:order:pageSize:)",
                {
                    let _: QuerySpec? = .buildLikeQuerySpec(
                        soupName: "a", selectPaths: nil, path: "p", likeKey: "k%", orderPath: "p", order: order, pageSize: 10)
                } as () -> Void
            ),
            (
                "QuerySpec.buildRangeQuerySpec(soupName:path:beginKey:endKey:orderPath:order:pageSize:)",
                {
                    let _: QuerySpec = .buildRangeQuerySpec(
                        soupName: "a", path: "p", beginKey: "a", endKey: "z", orderPath: "p", order: order, pageSize: 10)
                } as () -> Void
            ),
            (
                "QuerySpec.buildRangeQuerySpec(soupName:selectPaths:path:beginKey:endKey:orderPath:order:pageSize:)",
                {
                    let _: QuerySpec? = .buildRangeQuerySpec(
                        soupName: "a", selectPaths: nil, path: nil, beginKey: nil, endKey: nil, orderPath: "p", order: order, pageSize: 10)
                } as () -> Void
            ),
            (
                "QuerySpec.buildAllQuerySpec(soupName:orderPath:order:pageSize:)",
                {
                    let _: QuerySpec = .buildAllQuerySpec(soupName: "a", orderPath: "p", order: order, pageSize: 10)
                } as () -> Void
            ),
            (
                "QuerySpec.buildAllQuerySpec(soupName:selectPaths:orderPath:order:pageSize:)",
                {
                    let _: QuerySpec = .buildAllQuerySpec(soupName: "a", selectPaths: ["p"], orderPath: "p", order: order, pageSize: 10)
                } as () -> Void
            ),
            (
                "QuerySpec.buildMatchQuerySpec(soupName:path:matchKey:orderPath:order:pageSize:)",
                {
                    let _: QuerySpec = .buildMatchQuerySpec(
                        soupName: "a", path: "p", matchKey: "k", orderPath: "p", order: order, pageSize: 10)
                } as () -> Void
            ),
            (
                "QuerySpec.buildMatchQuerySpec(soupName:selectPaths:path:matchKey:orderPath:order:pageSize:)",
                {
                    let _: QuerySpec? = .buildMatchQuerySpec(
                        soupName: "a", selectPaths: ["p"], path: "p", matchKey: "k", orderPath: "p", order: order, pageSize: 10)
                } as () -> Void
            ),
            (
                "QuerySpec.buildSmartQuerySpec(smartSql:pageSize:)",
                { let _: QuerySpec? = .buildSmartQuerySpec(smartSql: "select 1", pageSize: 10) } as () -> Void
            ),
            ("QuerySpec.asDictionary()", { q in let _: [AnyHashable: Any] = q.asDictionary() } as Uses),
        ]
    }
}
