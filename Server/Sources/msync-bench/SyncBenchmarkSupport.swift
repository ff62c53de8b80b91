import FastJSON
import Foundation
import LocalForce
import LocalForceHTTP
import MobileSync
import SalesforceREST
import SmartStore

/// A LocalForce seeded with Accounts (in a child process unless asked otherwise), a fresh
/// file store and a sync manager.
struct SyncBench {
    let baseURL: URL
    let client: RestClient
    let store: SmartStore
    let manager: SyncManager
    let folder: URL
    private let inProcess: LocalForceServer?
    private let child: ServerProcess?

    static let token = "bench-token"

    /// Starts the server and opens the store; `mobileId`: Account gets ``mobileIdField``.
    static func start(accounts: Int, folder: URL, placement: ServerPlacement, mobileId: Bool = false) async throws -> SyncBench {
        let database = folder.appendingPathComponent("org.sqlite").path
        var inProcess: LocalForceServer?
        var child: ServerProcess?
        switch placement {
        case .inProcess:
            let localForce = try await LocalForce(
                schema: try schema(mobileId: mobileId), database: try SQLiteDatabase(path: database), token: token)
            try await seed(localForce, accounts: accounts)
            inProcess = try await LocalForceServer.start(localForce)
        case .child:
            child = try await ServerProcess.start(database: database, token: token, accounts: accounts, mobileId: mobileId)
        }
        guard let baseURL = inProcess?.baseURL ?? child?.baseURL else { throw BenchError("no server") }
        let client = RestClient(instanceURL: baseURL, tokenProvider: StaticAccessToken(token))
        let store = try SmartStore(path: folder.appendingPathComponent("store-\(UUID().uuidString).sqlite").path)
        for soup in ["accounts", "accounts_sdk"] {
            try store.registerSoup(
                soup,
                indexSpecs: [
                    IndexSpec("Id", .string), IndexSpec("Name", .string), IndexSpec("LastModifiedDate", .string),
                    IndexSpec("__local__", .string), IndexSpec("__sync_id__", .integer),
                ])
        }
        return SyncBench(
            baseURL: baseURL, client: client, store: store, manager: try SyncManager(store: store, client: client), folder: folder,
            inProcess: inProcess, child: child)
    }

    /// An external-id field of Account that idempotent creates upsert by.
    static let mobileIdField = "Mobile_Id__c"

    /// The standard schema, with ``mobileIdField`` on Account when asked.
    static func schema(mobileId: Bool) throws -> Schema {
        guard mobileId else { return .standard }
        let file = #"{"fields": {"Account": [{"name": "\#(mobileIdField)", "type": "string", "externalId": true, "unique": true}]}}"#
        return try SchemaFile.load(Data(file.utf8))
    }

    /// Inserts `accounts` Accounts of about 300 bytes each.
    static func seed(_ localForce: LocalForce, accounts: Int) async throws {
        let industries = ["Agriculture", "Banking", "Energy", "Media", "Retail", "Technology"]
        for start in stride(from: 0, to: accounts, by: 10_000) {
            _ = try await localForce.insert(
                (start..<min(accounts, start + 10_000)).map { index in
                    [
                        "Name": .string(String(format: "Account %07d", index)), "Industry": .string(industries[index % industries.count]),
                        "NumberOfEmployees": .int(Int64(index % 10_000)), "BillingCity": "San Francisco", "Phone": "(415) 555-0100",
                        "Description": .string("Benchmark account \(index) with a description long enough to resemble a real record."),
                    ]
                }, of: "Account")
        }
    }

    /// Starts a new peak-memory window for this process and the server process.
    func resetPeakMemory() {
        PeakMemory.reset()
        child?.resetPeakMemory()
    }

    /// `peak_rss_mb` (this process) and, with a child server, `server_peak_rss_mb`.
    var memoryReport: [String: JSONValue] {
        var report: [String: JSONValue] = ["peak_rss_mb": .double(PeakMemory.megabytes())]
        if let child { report["server_peak_rss_mb"] = .double(child.peakMemoryMegabytes) }
        return report
    }

    /// The server process's resident memory now, in MB (0 in process).
    var serverResidentMegabytes: Double { child?.residentMegabytes ?? 0 }

    /// A fresh folder for a run's databases (the caller removes it).
    static func temporaryFolder() throws -> URL {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("msync-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static let query = "SELECT Id, Name, Industry, NumberOfEmployees, BillingCity, Phone, Description FROM Account"

    func stop() async {
        await inProcess?.stop()
        child?.stop()
    }
}

/// Peak resident memory, resettable (Linux `/proc`).
enum PeakMemory {
    static func reset() {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }

    /// VmHWM in MB (0 when unavailable) of this process or of the one whose status file is given.
    static func megabytes(statusFile: String = "/proc/self/status") -> Double {
        guard let status = try? String(contentsOfFile: statusFile, encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let kilobytes = line.split(separator: " ").compactMap { Double($0) }.first ?? 0
            return (kilobytes / 1024 * 10).rounded() / 10
        }
        return 0
    }
}
