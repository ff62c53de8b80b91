import Foundation
import LocalForce
import SOQL

/// The SOQL and SOSL parsers, the printer, and LocalForce's compilation and execution of what
/// parses against the standard schema (in-memory SQLite, a few records).
struct SOQLFuzzTarget: FuzzTarget {
    let org = FuzzOrgHolder()

    func run(_ data: [UInt8]) {
        let text = String(decoding: data, as: UTF8.self)
        if let query = try? SOQLParser.parse(text) {
            // The printed form is the same query again: parse ∘ print is the identity.
            guard let again = try? SOQLParser.parse(query.description), again == query else {
                fatalError("printing and parsing changed the query: \(text) → \(query.description)")
            }
        }
        _ = try? SOSLParser.parse(text)
        let localForce = org.next()
        let isSearch = text.uppercased().hasPrefix("FIND")
        _ = blocking {
            var request = APIRequest(
                method: "GET", path: isSearch ? "/services/data/v66.0/search" : "/services/data/v66.0/query",
                query: nil, headers: ["Authorization": "Bearer \(FuzzOrg.token)"], body: [])
            request.query = [("q", text)]
            return await localForce.handle(request).status
        }
    }
}
