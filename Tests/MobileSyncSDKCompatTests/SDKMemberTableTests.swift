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
    static var uses: [(member: String, use: Any)] { smartStore + syncManager + syncState }

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

    static var syncManager: [(member: String, use: Any)] {
        typealias Uses = (SyncManager) throws -> Void
        let target = MetadataSyncDownTarget(objectType: "Account")
        return [
            (
                "SyncManager.sharedInstance(store:)",
                { (s: SmartStore) in let _: SyncManager? = SyncManager.sharedInstance(store: s) } as (SmartStore) -> Void
            ),
            ("SyncManager.removeSharedInstance(_:)", { (u: UserAccount) in SyncManager.removeSharedInstance(u) } as (UserAccount) -> Void),
            (
                "SyncManager.removeSharedInstance(named:forUserAccount:)",
                { (u: UserAccount) in SyncManager.removeSharedInstance(named: "s", forUserAccount: u) } as (UserAccount) -> Void
            ),
            (
                "SyncManager.removeSharedInstance(store:)",
                { (s: SmartStore) in SyncManager.removeSharedInstance(store: s) } as (SmartStore) -> Void
            ),
            ("SyncManager.removeSharedInstances()", { SyncManager.removeSharedInstances() } as () -> Void),
            ("SyncManager.store", { m in let _: SmartStore = m.store } as Uses),
            ("SyncManager.stop()", { m in m.stop() } as Uses),
            ("SyncManager.isStopping()", { m in let _: Bool = m.isStopping() } as Uses),
            ("SyncManager.isStopped()", { m in let _: Bool = m.isStopped() } as Uses),
            ("SyncManager.restart(restartStoppedSyncs:onUpdate:)", { m in try m.restart(restartStoppedSyncs: true) { _ in } } as Uses),
            ("SyncManager.checkAcceptingSyncs()", { m in try m.checkAcceptingSyncs() } as Uses),
            ("SyncManager.syncStatus(forId:)", { m in let _: SyncState? = m.syncStatus(forId: 1) } as Uses),
            ("SyncManager.syncStatus(forName:)", { m in let _: SyncState? = m.syncStatus(forName: "s") } as Uses),
            ("SyncManager.hasSync(forName:)", { m in let _: Bool = m.hasSync(forName: "s") } as Uses),
            ("SyncManager.deleteSync(forId:)", { m in m.deleteSync(forId: 1) } as Uses),
            ("SyncManager.deleteSync(forName:)", { m in m.deleteSync(forName: "s") } as Uses),
            (
                "SyncManager.syncDown(target:soupName:onUpdate:)",
                { m in let _: SyncState? = m.syncDown(target: target, soupName: "a") { (_: SyncState) in } } as Uses
            ),
            (
                "SyncManager.syncDown(target:options:soupName:onUpdate:)",
                { m in
                    let _: SyncState? = m.syncDown(target: target, options: .newSyncOptions(forSyncDown: .overwrite), soupName: "a") { _ in
                    }
                } as Uses
            ),
            (
                "SyncManager.syncDown(target:options:soupName:syncName:onUpdate:)",
                { m in
                    let _: SyncState = try m.syncDown(target: target, options: SyncOptions(), soupName: "a", syncName: "s") { _ in }
                } as Uses
            ),
            ("SyncManager.reSync(id:onUpdate:)", { m in let _: SyncState = try m.reSync(id: 1) { _ in } } as Uses),
            ("SyncManager.reSync(named:onUpdate:)", { m in let _: SyncState = try m.reSync(named: "s") { _ in } } as Uses),
            (
                "SyncManager.syncUp(options:soupName:onUpdate:)",
                { m in
                    let _: SyncState? = m.syncUp(options: .newSyncOptions(forSyncUp: ["Name"]), soupName: "a") { _ in }
                } as Uses
            ),
            (
                "SyncManager.syncUp(target:options:soupName:onUpdate:)",
                { m in
                    let _: SyncState? = m.syncUp(target: CollectionSyncUpTarget(), options: SyncOptions(), soupName: "a") { _ in }
                } as Uses
            ),
            (
                "SyncManager.syncUp(target:options:soupName:syncName:onUpdate:)",
                { m in
                    let _: SyncState = try m.syncUp(target: BatchSyncUpTarget(), options: SyncOptions(), soupName: "a", syncName: "s") {
                        _ in
                    }
                } as Uses
            ),
            (
                "SyncManager.cleanResyncGhosts(forId:onComplete:)",
                { m in try m.cleanResyncGhosts(forId: 1) { (_: SyncStatus, _: UInt) in } } as Uses
            ),
            ("SyncManager.cleanResyncGhosts(forName:onComplete:)", { m in try m.cleanResyncGhosts(forName: "s") { _, _ in } } as Uses),
            (
                "SyncManager.reSyncWithoutUpdates(named:_:)",
                { m in m.reSyncWithoutUpdates(named: "s") { (_: Result<SyncState, MobileSyncError>) in } } as Uses
            ),
            ("SyncManager.cleanGhosts(named:_:)", { m in m.cleanGhosts(named: "s") { (_: Result<UInt, MobileSyncError>) in } } as Uses),
            ("SyncManager.publisher(for:)", { m in let _: Future<SyncState, MobileSyncError> = m.publisher(for: "s") } as Uses),
            (
                "SyncManager.cleanGhostsPublisher(for:)",
                { m in let _: Future<UInt, MobileSyncError> = m.cleanGhostsPublisher(for: "s") } as Uses
            ),
            (
                "MobileSyncError",
                {
                    let errors: [MobileSyncError] = [.notStarted(nil), .stopped, .failed(nil), .unknown]
                    _ = errors
                } as () -> Void
            ),
        ]
    }

    static var syncState: [(member: String, use: Any)] {
        typealias Uses = (SyncState) -> Void
        return [
            ("SyncState.syncId", { s in let _: Int = s.syncId } as Uses),
            ("SyncState.name", { s in let _: String = s.name } as Uses),
            ("SyncState.type", { s in let _: SyncType = s.type } as Uses),
            ("SyncState.soupName", { s in let _: String = s.soupName } as Uses),
            ("SyncState.options", { s in let _: SyncOptions = s.options } as Uses),
            ("SyncState.status", { s in s.status = .running } as Uses),
            ("SyncState.progress", { s in s.progress = 50 } as Uses),
            ("SyncState.totalSize", { s in s.totalSize = 10 } as Uses),
            ("SyncState.mergeMode", { s in s.mergeMode = .leaveIfChanged } as Uses),
            ("SyncState.maxTimeStamp", { s in s.maxTimeStamp = 0 } as Uses),
            ("SyncState.startTime", { s in let _: Int = s.startTime } as Uses),
            ("SyncState.endTime", { s in let _: Int = s.endTime } as Uses),
            ("SyncState.error", { s in s.error = "" } as Uses),
            (
                "SyncState.byId(_:store:)",
                { (store: SmartStore) in let _: SyncState? = SyncState.byId(1, store: store) } as (SmartStore) -> Void
            ),
            (
                "SyncState.byName(_:store:)",
                { (store: SmartStore) in let _: SyncState? = SyncState.byName("s", store: store) } as (SmartStore) -> Void
            ),
            ("SyncState.save(_:)", { (s: SyncState, store: SmartStore) in s.save(store) } as (SyncState, SmartStore) -> Void),
            (
                "SyncState.delete(syncId:store:)",
                { (store: SmartStore) in SyncState.delete(syncId: 1, store: store) } as (SmartStore) -> Void
            ),
            (
                "SyncState.delete(syncName:store:)",
                { (store: SmartStore) in SyncState.delete(syncName: "s", store: store) } as (SmartStore) -> Void
            ),
            (
                "SyncState.getSyncsWithStatus(_:status:)",
                { (store: SmartStore) in let _: [SyncState] = SyncState.getSyncsWithStatus(store, status: .done) } as (SmartStore) -> Void
            ),
            ("SyncState.build(dict:)", { let _: SyncState? = SyncState.build(dict: [:]) } as () -> Void),
            ("SyncState.asDict()", { s in let _: [AnyHashable: Any] = s.asDict() } as Uses),
            ("SyncState.isDone()", { s in let _: Bool = s.isDone() } as Uses),
            ("SyncState.hasFailed()", { s in let _: Bool = s.hasFailed() } as Uses),
            ("SyncState.isRunning()", { s in let _: Bool = s.isRunning() } as Uses),
            ("SyncState.isStopped()", { s in let _: Bool = s.isStopped() } as Uses),
            ("SyncState.syncType(from:)", { let _: SyncType = SyncState.syncType(from: "syncDown") } as () -> Void),
            ("SyncState.syncType(toString:)", { let _: String = SyncState.syncType(toString: .up) } as () -> Void),
            ("SyncState.syncStatus(from:)", { let _: SyncStatus = SyncState.syncStatus(from: "DONE") } as () -> Void),
            ("SyncState.syncStatus(toString:)", { let _: String = SyncState.syncStatus(toString: .done) } as () -> Void),
            ("SyncState.mergeMode(from:)", { let _: SyncMergeMode = SyncState.mergeMode(from: "OVERWRITE") } as () -> Void),
            ("SyncState.mergeMode(toString:)", { let _: String = SyncState.mergeMode(toString: .overwrite) } as () -> Void),
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
