import Foundation
import TestSupport
import Testing

@testable import LocalForce

/// An in-memory org's private folder goes with it: closed twice at once (a server's `stop()`
/// and `wait()`) it is removed, and one a killed process left is removed by the next.
@Suite struct TemporaryOrgFolderTests {
    @Test func closingTwiceAtOnceRemovesTheFolder() async throws {
        for _ in 0..<10 {
            let database = try SQLiteDatabase(path: ":memory:")
            let folder = try #require(database.temporaryFolder)
            _ = try await database.write { db in try db.execute("CREATE TABLE t (x INTEGER)", []) }
            async let first: Void = database.close()
            async let second: Void = database.close()
            _ = await (first, second)
            #expect(!FileManager.default.fileExists(atPath: folder))
        }
    }

    @Test func aFolderWhoseOwnerDiedIsRemovedAndALiveOnesIsKept() throws {
        let temporary = FileManager.default.temporaryDirectory
        let dead = temporary.appendingPathComponent("localforce-test-\(UUID().uuidString)")
        let live = temporary.appendingPathComponent("localforce-test-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: live) }
        let child = try RunningChild(URL(fileURLWithPath: "/bin/sh"), ["-c", "exit 0"])
        child.waitUntilExit() // reaped: its pid names no process now
        for (folder, pid) in [(dead, child.processIdentifier), (live, ProcessInfo.processInfo.processIdentifier)] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data("\(pid)".utf8).write(to: folder.appendingPathComponent("owner.pid"))
            try Data("org".utf8).write(to: folder.appendingPathComponent("org.sqlite"))
        }
        SQLiteDatabase.removeAbandonedFolders()
        #expect(!FileManager.default.fileExists(atPath: dead.path))
        #expect(FileManager.default.fileExists(atPath: live.path))
    }
}
