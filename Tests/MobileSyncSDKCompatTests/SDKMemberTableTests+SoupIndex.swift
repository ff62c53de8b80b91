import Foundation
import MobileSyncSDKCompat

#if canImport(Combine)
    import Combine
#endif

/// The SDK's SoupIndex members, each spelled as an SDK app spells it (see `SDKMemberTableTests`).
extension SDKMemberTableTests {
    static var soupIndex: [(member: String, use: Any)] {
        typealias Uses = (SoupIndex) -> Void
        let constants: [(String, String)] = [
            ("kSoupIndexPath", kSoupIndexPath), ("kSoupIndexType", kSoupIndexType), ("kSoupIndexTypeString", kSoupIndexTypeString),
            ("kSoupIndexTypeInteger", kSoupIndexTypeInteger), ("kSoupIndexTypeFloating", kSoupIndexTypeFloating),
            ("kSoupIndexTypeFullText", kSoupIndexTypeFullText), ("kSoupIndexTypeJSON1", kSoupIndexTypeJSON1),
        ]
        return constants.map { ($0.0, $0.1 as Any) } + [
            ("SoupIndex.path", { i in i.path = "Name" } as Uses),
            ("SoupIndex.indexType", { i in i.indexType = kSoupIndexTypeString } as Uses),
            ("SoupIndex.columnType", { i in let _: String? = i.columnType } as Uses),
            ("SoupIndex.columnName", { i in let _: String = i.columnName } as Uses),
            (
                "SoupIndex.init(path:indexType:columnName:)",
                { let _: SoupIndex? = SoupIndex(path: "Id", indexType: kSoupIndexTypeString, columnName: nil) } as () -> Void
            ),
            ("SoupIndex.init(dictionary:)", { let _: SoupIndex = SoupIndex(dictionary: [kSoupIndexPath: "Id"]) } as () -> Void),
            ("SoupIndex.asDictionary()", { i in let _: [AnyHashable: Any] = i.asDictionary() } as Uses),
            ("SoupIndex.asDictionary(_:)", { i in let _: [AnyHashable: Any] = i.asDictionary(true) } as Uses),
            (
                "SoupIndex.asArrayOfDictionaries(_:withColumnName:)",
                { i in let _: [[AnyHashable: Any]] = SoupIndex.asArrayOfDictionaries([i], withColumnName: false) } as Uses
            ),
            (
                "SoupIndex.asArraySoupIndexes(_:)",
                { let _: [SoupIndex] = SoupIndex.asArraySoupIndexes([[kSoupIndexPath: "Id"]]) } as () -> Void
            ),
            ("SoupIndex.hasFts(_:)", { i in let _: Bool = SoupIndex.hasFts([i]) } as Uses),
            ("SoupIndex.hasJSON1(_:)", { i in let _: Bool = SoupIndex.hasJSON1([i]) } as Uses),
            ("SoupIndex.getPathType()", { i in let _: String = i.getPathType() } as Uses),
        ]
    }
}
