import FastJSON
import Foundation
import SmartStore
import TestSupport
import Testing

/// Tables on a terminal (a pseudo-terminal): columns line up by the columns the terminal gives
/// each character, so wide characters (日本語), emoji and combining accents do not shift them.
@Suite struct TableOutputTests {
    @Test func wideCharactersAndEmojiKeepColumnsAligned() async throws {
        let folder = try Msync.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("store.sqlite").path
        do {
            let store = try SmartStore(path: path)
            try store.registerSoup("accounts", indexSpecs: [IndexSpec(path: "Name", type: .string)])
            for name in ["日本語", "🚀", "abcdef", "e\u{301}", "👩‍👩‍👧", "🇯🇵x", "❤️", String(repeating: "漢", count: 40)] {
                try await store.create(["Name": .string(name)], in: "accounts")
            }
            try store.close()
        }
        // A marker that never appears: the terminal is read to the end.
        let (status, screen) = try await SyncCommandTests.runOnATerminal(
            ["query", "--store", path, "select {accounts:Name}, '|' as bar from {accounts} order by {accounts:_soupEntryId}"],
            interruptAfter: "\u{1}never")
        #expect(status == 0, "\(screen)")
        let lines = screen.components(separatedBy: "\r\n")
        // 漢 ×40 is 80 columns: cut at 60 to 29 of them (58 columns) and `…`, so the column is 59 wide.
        func padded(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: 59 - width) }
        let expected = [
            padded("Name", 4) + "  bar", padded("日本語", 6) + "  |", padded("🚀", 2) + "  |", padded("abcdef", 6) + "  |",
            padded("e\u{301}", 1) + "  |", padded("👩‍👩‍👧", 2) + "  |", padded("🇯🇵x", 3) + "  |", padded("❤️", 2) + "  |",
            padded(String(repeating: "漢", count: 29) + "…", 59) + "  |",
        ]
        #expect(Array(lines.prefix(1)) == Array(expected.prefix(1)), "\(screen)")
        #expect(Array(lines.dropFirst(2).prefix(8)) == Array(expected.dropFirst()), "\(screen)")
    }
}
