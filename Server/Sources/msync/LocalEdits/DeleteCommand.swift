import ArgumentParser
import FastJSON
import Foundation
import MobileSync
import SmartStore

/// `msync delete --store S --soup accounts ID… | --entry-id N… | --where CLAUSE`: marks
/// entries deleted as an app's `deleteLocally` does; the next sync up deletes them on the
/// server (and a record created here and never sent, only here).
struct DeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete records in a store as an app does (deleteLocally): the next sync up deletes them on the server.",
        discussion: """
            Records are given by id, by _soupEntryId (--entry-id), or by a Smart SQL condition on \
            the soup (--where); every one given must exist, and all are marked in one transaction, \
            or none:
              msync delete --soup accounts 001000000000001AAA 001000000000002AAA \\
                --store app.sqlite
              msync delete --soup accounts --where "{accounts:Industry} = 'Shipping'" \\
                --store app.sqlite
            """
    )

    @OptionGroup
    var options: LocalEditOptions

    @Option(name: .customLong("entry-id"), help: "A _soupEntryId to delete (repeatable).")
    var entryIds: [Int64] = []

    @Option(name: .customLong("where"), help: "A Smart SQL condition on the soup, such as \"{accounts:Industry} = 'Shipping'\".")
    var condition: String?

    @Argument(help: "Record ids (the --id-field's values) to delete.")
    var ids: [String] = []

    func validate() throws {
        guard !ids.isEmpty || !entryIds.isEmpty || condition != nil else {
            throw ValidationError("give record ids, --entry-id or --where")
        }
    }

    func run() async throws {
        let smartStore = try options.open()
        defer { try? smartStore.close() }
        var targets = entryIds
        for id in ids { targets.append(try await options.entryId(ofRecord: .string(id), in: smartStore)) }
        if let condition { targets += try await matching(condition, in: smartStore) }
        let found = Set(try await smartStore.retrieve(entryIds, from: options.soup).compactMap { $0["_soupEntryId"]?.int64Value })
        if let missing = entryIds.first(where: { !found.contains($0) }) {
            throw CommandFailure("no entry of \(options.soup) has _soupEntryId \(missing)")
        }
        var seen = Set<Int64>()
        let unique = targets.filter { seen.insert($0).inserted }
        let marked = unique.isEmpty ? [] : try await smartStore.deleteLocally(entryIds: unique, in: options.soup)
        options.report(marked.map { ("deleted", $0) })
        if unique.isEmpty { FileHandle.standardError.write(Data("no entry of \(options.soup) matched\n".utf8)) }
        if marked.count < unique.count {
            // Removed by another process (a sync) between the lookup and the transaction.
            FileHandle.standardError.write(Data("\(unique.count - marked.count) entries were removed meanwhile by another writer\n".utf8))
        }
    }

    /// The `_soupEntryId`s of the soup's entries where `condition` holds, ascending.
    private func matching(_ condition: String, in smartStore: SmartStore) async throws -> [Int64] {
        let soup = options.soup
        let sql =
            "select {\(soup):_soupEntryId} from {\(soup)} where (\(condition)) and {\(soup):_soupEntryId} > ? order by {\(soup):_soupEntryId}"
        var ids: [Int64] = []
        while true {
            let page = try await smartStore.query(.smart(sql, pageSize: 1000), arguments: [.int(ids.last ?? 0)])
                .compactMap { $0.arrayValue?.first?.int64Value }
            // A condition that escapes its parentheses can undo the `> ?` that pages through.
            if let first = page.first, let last = ids.last, first <= last {
                throw CommandFailure("--where must be one condition: \(condition) does not keep its parentheses")
            }
            ids += page
            if page.count < 1000 { return ids }
        }
    }
}
