import Foundation
import TestSupport
import Testing

/// The README's first command keeps working: `msync demo` ends with store and org agreeing.
@Suite struct DemoCommandTests {
    @Test func demoRoundTrip() async throws {
        let (status, text) = try await Msync.run(["demo", "--accounts", "300"])
        #expect(status == 0, "\(text)")
        #expect(text.contains("seeded 300 accounts and 300 contacts"))
        #expect(text.contains("sync down accounts: DONE 100% of 300"))
        #expect(text.contains("ghost cleanup: 7 local records removed"))
        #expect(text.contains("round trip complete: store and org agree"))
        #expect(!text.contains("error"), "\(text)")
    }

    /// A kept demo lists what to run next, the inspector included.
    @Test func aKeptDemoListsTheCommandsToExploreIt() async throws {
        let folder = try Msync.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let kept = folder.appendingPathComponent("demo").path
        let (status, text) = try await Msync.run(["demo", "--accounts", "50", "--keep", kept])
        #expect(status == 0, "\(text)")
        for command in [
            "msync soups --store", "msync syncs --store", "msync query --store", "msync serve --database", "msync inspect --store",
        ] {
            #expect(text.contains(command), "\(command) missing: \(text)")
        }
        // The org and the store are one file each: nothing left in a write-ahead log.
        for file in ["org.sqlite", "store.sqlite"] {
            let log = (try? FileManager.default.attributesOfItem(atPath: kept + "/" + file + "-wal"))?[.size] as? Int
            #expect((log ?? 0) == 0, "\(file)-wal holds \(log ?? 0) bytes")
        }
        // A query cut by its page says so, and how to see the rest.
        let store = kept + "/store.sqlite"
        let (queryStatus, page) = try await Msync.run([
            "query", "--store", store, "--page-size", "5", "--format", "json", "select {accounts:Name} from {accounts}",
        ])
        #expect(queryStatus == 0, "\(page)")
        #expect(page.contains("rows 1–5 of ") && page.contains("--page 1 for the next 5"), "\(page)")
        let (_, all) = try await Msync.run(["query", "--store", store, "select count(*) from {accounts}"])
        #expect(!all.contains("--page 1"), "\(all)")
        // An expression's column is named as the Smart SQL wrote it, an alias as given.
        let (_, csv) = try await Msync.run([
            "query", "--store", store, "--format", "csv", "--page-size", "1",
            "select {accounts:Name} || ' / ' || {accounts:Industry}, length({accounts:Name}) as n from {accounts}",
        ])
        #expect(csv.hasPrefix("{accounts:Name} || ' / ' || {accounts:Industry},n\r\n"), "\(csv)")
    }
}
