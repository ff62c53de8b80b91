import FastJSON
import Foundation
import LocalForceTesting

/// A LocalForce over HTTP for msync to talk to, with the accounts a test asks for.
final class CommandLineOrg: Sendable {
    /// The bearer token msync is given (`--token`).
    static let token = TestOrg.token
    let org: TestOrg

    init() async throws {
        org = try await TestOrg.start(transport: .http)
    }

    var localForce: LocalForce { org.localForce }
    var client: RestClient { org.client }
    /// The org's HTTP address (`--instance-url`).
    var baseURL: URL { org.baseURL ?? URL(fileURLWithPath: "/") }

    /// Inserts accounts named `prefix 00000`, `prefix 00001`, …; returns their ids.
    @discardableResult
    func createAccounts(_ count: Int, prefix: String = "Account") async throws -> [String] {
        let records: [[String: JSONValue]] = (0..<count).map { index in
            ["Name": .string(String(format: "\(prefix) %05d", index)), "Industry": "Energy"]
        }
        return try await localForce.insert(records, of: "Account")
    }

    func stop() async { await org.stop() }
}
