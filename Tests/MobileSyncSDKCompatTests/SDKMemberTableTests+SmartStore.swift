import Foundation
import MobileSyncSDKCompat

#if canImport(Combine)
    import Combine
#endif

/// The SDK's SmartStore members, each spelled as an SDK app spells it (see `SDKMemberTableTests`).
extension SDKMemberTableTests {
    static var smartStore: [(member: String, use: Any)] {
        [
            ("SmartStore.allStoreNames", { _ = SmartStore.allStoreNames } as () -> Void),
            ("SmartStore.allGlobalStoreNames", { _ = SmartStore.allGlobalStoreNames } as () -> Void),
            ("SmartStore.shared(withName:)", { _ = SmartStore.shared(withName: "s") } as () -> Void),
            (
                "SmartStore.shared(withName:forUserAccount:)",
                { (u: UserAccount) in _ = SmartStore.shared(withName: "s", forUserAccount: u) } as (UserAccount) -> Void
            ),
            ("SmartStore.removeShared(withName:)", { SmartStore.removeShared(withName: "s") } as () -> Void),
            (
                "SmartStore.removeShared(withName:forUserAccount:)",
                { (u: UserAccount) in SmartStore.removeShared(withName: "s", forUserAccount: u) } as (UserAccount) -> Void
            ),
            ("SmartStore.removeSharedGlobal(withName:)", { SmartStore.removeSharedGlobal(withName: "s") } as () -> Void),
            ("SmartStore.removeAllForCurrentUser()", { SmartStore.removeAllForCurrentUser() } as () -> Void),
            (
                "SmartStore.removeAll(forUserAccount:)",
                { (u: UserAccount) in SmartStore.removeAll(forUserAccount: u) } as (UserAccount) -> Void
            ),
            ("SmartStore.removeAllGlobal()", { SmartStore.removeAllGlobal() } as () -> Void),
            ("SmartStore.date(lastModifiedValue:)", { let _: Date = SmartStore.date(lastModifiedValue: NSNumber(value: 0)) } as () -> Void),
            ("SmartStore.defaultStoreName", { let _: String = SmartStore.defaultStoreName } as () -> Void),
            ("SmartStore.errorDomain", { let _: String = SmartStore.errorDomain } as () -> Void),
            ("SmartStore.soupEntryId", { let _: String = SmartStore.soupEntryId } as () -> Void),
            ("SmartStore.lastModifiedDate", { let _: String = SmartStore.lastModifiedDate } as () -> Void),
            ("SmartStore.idColumn", { let _: String = SmartStore.idColumn } as () -> Void),
            ("SmartStore.createdColumn", { let _: String = SmartStore.createdColumn } as () -> Void),
            ("SmartStore.lastModifiedColumn", { let _: String = SmartStore.lastModifiedColumn } as () -> Void),
            ("SmartStore.soupColumn", { let _: String = SmartStore.soupColumn } as () -> Void),
            ("SmartStore.name", { (s: SmartStore) in let _: String = s.name } as (SmartStore) -> Void),
            ("SmartStore.path", { (s: SmartStore) in let _: String? = s.path } as (SmartStore) -> Void),
            (
                "SmartStore.indices(forSoupNamed:)",
                { (s: SmartStore) in let _: [SoupIndex] = s.indices(forSoupNamed: "a") } as (SmartStore) -> Void
            ),
            ("SmartStore.soupExists(forName:)", { (s: SmartStore) in let _: Bool = s.soupExists(forName: "a") } as (SmartStore) -> Void),
            (
                "SmartStore.registerSoup(withName:withIndices:)",
                { (s: SmartStore) in try s.registerSoup(withName: "a", withIndices: []) } as (SmartStore) throws -> Void
            ),
            (
                "SmartStore.count(using:)",
                { (s: SmartStore, q: QuerySpec) in let _: NSNumber = try s.count(using: q) } as (SmartStore, QuerySpec) throws -> Void
            ),
            (
                "SmartStore.query(using:startingFromPageIndex:)",
                { (s: SmartStore, q: QuerySpec) in let _: [Any] = try s.query(using: q, startingFromPageIndex: 0) }
                    as (SmartStore, QuerySpec) throws -> Void
            ),
            (
                "SmartStore.query(using:startingFromPageIndex:whereArgs:)",
                { (s: SmartStore, q: QuerySpec) in let _: [Any] = try s.query(using: q, startingFromPageIndex: 0, whereArgs: ["x"]) }
                    as (SmartStore, QuerySpec) throws -> Void
            ),
            (
                "SmartStore.retrieve(usingSoupEntryIds:fromSoupNamed:)",
                { (s: SmartStore) in let _: [[AnyHashable: Any]] = s.retrieve(usingSoupEntryIds: [1], fromSoupNamed: "a") }
                    as (SmartStore) -> Void
            ),
            (
                "SmartStore.upsert(entries:forSoupNamed:)",
                { (s: SmartStore) in let _: [[AnyHashable: Any]] = s.upsert(entries: [["Name": "n"]], forSoupNamed: "a") }
                    as (SmartStore) -> Void
            ),
            (
                "SmartStore.upsert(entries:forSoupNamed:withExternalIdPath:)",
                { (s: SmartStore) in let _: [Any] = try s.upsert(entries: [["Id": "1"]], forSoupNamed: "a", withExternalIdPath: "Id") }
                    as (SmartStore) throws -> Void
            ),
            (
                "SmartStore.lookupSoupEntryId(soupNamed:fieldPath:fieldValue:)",
                { (s: SmartStore) in let _: NSNumber = try s.lookupSoupEntryId(soupNamed: "a", fieldPath: "Id", fieldValue: "1") }
                    as (SmartStore) throws -> Void
            ),
            (
                "SmartStore.remove(entryIds:forSoupNamed:)",
                { (s: SmartStore) in try s.remove(entryIds: [1], forSoupNamed: "a") } as (SmartStore) throws -> Void
            ),
            (
                "SmartStore.removeEntries(usingQuerySpec:forSoupNamed:)",
                { (s: SmartStore, q: QuerySpec) in try s.removeEntries(usingQuerySpec: q, forSoupNamed: "a") }
                    as (SmartStore, QuerySpec) throws -> Void
            ),
            ("SmartStore.removeSoup(_:)", { (s: SmartStore) in s.removeSoup("a") } as (SmartStore) -> Void),
            ("SmartStore.removeAllSoups()", { (s: SmartStore) in s.removeAllSoups() } as (SmartStore) -> Void),
            ("SmartStore.allSoupNames()", { (s: SmartStore) in let _: [String] = s.allSoupNames() } as (SmartStore) -> Void),
            ("SmartStore.databaseSize()", { (s: SmartStore) in let _: UInt64 = s.databaseSize() } as (SmartStore) -> Void),
            (
                "SmartStore.alterSoup(named:indexSpecs:reIndexData:)",
                { (s: SmartStore) in let _: Bool = s.alterSoup(named: "a", indexSpecs: [], reIndexData: true) } as (SmartStore) -> Void
            ),
            (
                "SmartStore.reIndexSoup(named:indexPaths:)",
                { (s: SmartStore) in let _: Bool = s.reIndexSoup(named: "a", indexPaths: ["Id"]) } as (SmartStore) -> Void
            ),
            (
                "SmartStore.registerSoup(withName:withIndexPaths:)",
                { (s: SmartStore) in let _: Result<Bool, SmartStoreError> = s.registerSoup(withName: "a", withIndexPaths: ["Id"]) }
                    as (SmartStore) -> Void
            ),
            (
                "SmartStore.query(_:)",
                { (s: SmartStore) in let _: Result<[Any], SmartStoreError> = s.query("select 1") } as (SmartStore) -> Void
            ),
            (
                "SmartStore.publisher(for:)",
                { (s: SmartStore) in let _: Future<[Any], SmartStoreError> = s.publisher(for: "select 1") } as (SmartStore) -> Void
            ),
        ]
    }
}
