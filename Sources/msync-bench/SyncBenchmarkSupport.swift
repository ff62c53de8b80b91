import FastJSON
import Foundation
import LocalForce
import MobileSync
import SalesforceREST
import SmartStore

/// An in-process LocalForce seeded with Accounts, a fresh file store and a sync manager.
struct SyncBench {
    let server: LocalForceServer
    let client: RestClient
    let store: SmartStore
    let manager: SyncManager
    let folder: URL

    static let token = "bench-token"

    static func start(accounts: Int, folder: URL) async throws -> SyncBench {
        let localForce = try await LocalForce(database: try SQLiteDatabase(path: folder.appendingPathComponent("org.sqlite").path), token: token)
        let industries = ["Agriculture", "Banking", "Energy", "Media", "Retail", "Technology"]
        _ = try await localForce.insert((0..<accounts).map { index in
            ["Name": .string(String(format: "Account %07d", index)), "Industry": .string(industries[index % industries.count]),
             "NumberOfEmployees": .int(Int64(index % 10_000)), "BillingCity": "San Francisco", "Phone": "(415) 555-0100",
             "Description": .string("Benchmark account \(index) with a description long enough to resemble a real record.")]
        }, of: "Account")
        let server = try await LocalForceServer.start(localForce)
        let client = RestClient(instanceURL: server.baseURL, tokenProvider: StaticAccessToken(token))
        let store = try SmartStore(path: folder.appendingPathComponent("store-\(UUID().uuidString).sqlite").path)
        try store.registerSoup("accounts", indexSpecs: [IndexSpec("Id", .string), IndexSpec("Name", .string), IndexSpec("LastModifiedDate", .string),
                                                        IndexSpec("__local__", .string), IndexSpec("__sync_id__", .integer)])
        return SyncBench(server: server, client: client, store: store, manager: try SyncManager(store: store, client: client), folder: folder)
    }

    /// A fresh folder for a run's databases (the caller removes it).
    static func temporaryFolder() throws -> URL {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("msync-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static let query = "SELECT Id, Name, Industry, NumberOfEmployees, BillingCity, Phone, Description FROM Account"

    func stop() async { await server.stop() }
}

/// Peak resident memory, resettable (Linux `/proc`).
enum PeakMemory {
    static func reset() {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }

    /// VmHWM in MB (0 when unavailable).
    static func megabytes() -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let kilobytes = line.split(separator: " ").compactMap { Double($0) }.first ?? 0
            return (kilobytes / 1024 * 10).rounded() / 10
        }
        return 0
    }
}
