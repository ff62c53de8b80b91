import Foundation
import MobileSyncSDKCompat
import Testing

#if canImport(Combine)
    import Combine
#endif

/// The member table of the article "The SDK's members" cannot drift: each member it marks ✓ is
/// spelled here as an SDK app spells it, and compiles, and each spelled here is marked ✓ there.
@Suite struct SDKMemberTableTests {
    /// The SDK's members, each with a use that compiles against this module (not run).
    static var uses: [(member: String, use: Any)] { smartStore }

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

    /// A row of the article's tables: its section, the SDK member (first code span) and the
    /// second cell (✓, `differs: …` or `missing`).
    struct Row {
        var section: String
        var member: String
        var note: String
        var present: Bool { note.hasPrefix("✓") }
    }

    /// The article's member rows, and its summary rows (section → present, differs, missing).
    static func article() throws -> (rows: [Row], summary: [String: [Int]]) {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/MobileSyncSDKCompat/MobileSyncSDKCompat.docc/SDKMembers.md")
        var rows: [Row] = []
        var summary: [String: [Int]] = [:]
        var section = ""
        for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
            if line.hasPrefix("### ") { section = String(line.dropFirst(4)) }
            guard line.hasPrefix("| ") else { continue }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            if line.hasPrefix("| `"), cells.count >= 2 {
                rows.append(Row(section: section, member: cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`")), note: cells[1]))
            } else if cells.count == 4, case let counts = cells.dropFirst().compactMap({ Int($0) }), counts.count == 3 {
                summary[cells[0]] = counts
            }
        }
        return (rows, summary)
    }

    @Test func everyMemberMarkedPresentCompilesAndNoOtherDoes() throws {
        let (rows, summary) = try Self.article()
        let spelled = Self.uses.map(\.member)
        #expect(Set(spelled).count == spelled.count, "a member spelled twice")
        #expect(Set(rows.map(\.member)).count == rows.count, "a row twice")
        let marked = Set(rows.filter(\.present).map(\.member))
        #expect(marked.subtracting(spelled).sorted() == [], "marked ✓ but not spelled here")
        #expect(Set(spelled).subtracting(marked).sorted() == [], "spelled here but not marked ✓")
        // Every other row says why it differs, or that it is missing.
        for row in rows where !row.present {
            #expect(row.note.hasPrefix("differs: ") || row.note == "missing", "\(row.member): \(row.note)")
        }
        // The counts the article gives are its rows'.
        let sections = Set(rows.map(\.section))
        #expect(Set(summary.keys) == sections)
        for section in sections {
            let mine = rows.filter { $0.section == section }
            let counted = [
                mine.filter(\.present).count, mine.filter { $0.note.hasPrefix("differs") }.count,
                mine.filter { $0.note == "missing" }.count,
            ]
            #expect(summary[section] == counted, "\(section)")
        }
    }
}
