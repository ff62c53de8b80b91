import Foundation
import Testing

/// The README's first command keeps working: `msync demo` ends with store and org agreeing.
@Suite struct DemoCommandTests {
    @Test func demoRoundTrip() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let binary = try #require(["debug", "release"].map { root.appendingPathComponent(".build/\($0)/msync") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) })
        let process = Process()
        process.executableURL = binary
        process.arguments = ["demo", "--accounts", "300"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = try await Task.detached { output.fileHandleForReading.readDataToEndOfFile() }.value
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("seeded 300 accounts and 300 contacts"))
        #expect(text.contains("sync down accounts: DONE 100% of 300"))
        #expect(text.contains("ghost cleanup: 7 local records removed"))
        #expect(text.contains("round trip complete: store and org agree"))
        #expect(!text.contains("error"), "\(text)")
    }
}
