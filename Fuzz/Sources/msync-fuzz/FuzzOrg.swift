import FastJSON
import Foundation
import LocalForce

/// The in-memory org the LocalForce targets run against: the standard schema and a few related
/// records, so that queries, updates and deletes have something to reach.
enum FuzzOrg {
    static let token = "fuzz-token"

    static func make() async -> LocalForce {
        do {
            let localForce = try await LocalForce(database: try SQLiteDatabase(path: ":memory:"), token: token)
            let account = await localForce.handle(post("/services/data/v66.0/sobjects/Account", ["Name": "Acme", "Industry": "Energy"]))
            let accountId = (try? JSONValue(parsing: account.body))?["id"]?.stringValue ?? ""
            _ = await localForce.handle(post("/services/data/v66.0/sobjects/Contact", ["LastName": "Smith", "AccountId": .string(accountId)]))
            _ = await localForce.handle(post("/services/data/v66.0/sobjects/Opportunity",
                                             ["Name": "Deal", "StageName": "New", "CloseDate": "2026-01-01", "AccountId": .string(accountId)]))
            return localForce
        } catch {
            fatalError("fuzz org setup failed: \(error)")
        }
    }

    private static func post(_ path: String, _ body: JSONValue) -> APIRequest {
        APIRequest(method: "POST", path: path, query: nil, headers: ["Authorization": "Bearer \(token)"], body: body.jsonBytes)
    }
}
