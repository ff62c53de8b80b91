import Foundation
import Locking
import SalesforceWire

extension RestClient {
    /// The server's clock now, in epoch milliseconds (whole seconds): the `Date` header of a
    /// fresh `GET /services/data/vNN.N/`. Whatever the server does for a request sent after
    /// this returns is stamped at or after it, whatever the client's clock says.
    ///
    /// - Throws: ``RestError/invalidResponse(_:)`` when the response has no valid `Date` header.
    public func serverTime() async throws -> Int64 {
        let response = try await send(RestRequest(method: .get, path: path("")))
        let header = response.headers.first { $0.key.lowercased() == "date" }?.value
        guard let header, let milliseconds = HTTPDate.parse(header) else {
            throw RestError.invalidResponse("the server sent no valid Date header")
        }
        return milliseconds
    }

    /// The id of the user the token belongs to (`user_id` of `GET /services/oauth2/userinfo`),
    /// fetched once per client.
    public func currentUserId() async throws -> String {
        if let known = identity.userId { return known }
        let info = try await send(RestRequest(method: .get, path: "/services/oauth2/userinfo")).json()
        guard let id = info["user_id"]?.stringValue, !id.isEmpty else { throw RestError.invalidResponse("userinfo returned no user_id") }
        identity.userId = id
        return id
    }
}

/// What a client learned about its user, kept across calls.
final class ClientIdentity: Sendable {
    private let known = Locked<String?>(nil)

    var userId: String? {
        get { known.current }
        set { known.withLock { $0 = newValue } }
    }
}
