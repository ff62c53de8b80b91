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
    static var uses: [(member: String, use: Any)] { smartStore + querySpec + soupIndex + syncManager + syncState }

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
