import Foundation
import TestSupport
import Testing

/// The README's first command keeps working: `msync demo` ends with store and org agreeing.
@Suite struct DemoCommandTests {
    @Test func demoRoundTrip() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let binary = try #require(
            ["debug", "release"].map { root.appendingPathComponent(".build/\($0)/msync") }
                .first { FileManager.default.isExecutableFile(atPath: $0.path) })
        let (status, text) = try await ChildProcess.run(binary, ["demo", "--accounts", "300"])
        #expect(status == 0, "\(text)")
        #expect(text.contains("seeded 300 accounts and 300 contacts"))
        #expect(text.contains("sync down accounts: DONE 100% of 300"))
        #expect(text.contains("ghost cleanup: 7 local records removed"))
        #expect(text.contains("round trip complete: store and org agree"))
        #expect(!text.contains("error"), "\(text)")
    }
}
