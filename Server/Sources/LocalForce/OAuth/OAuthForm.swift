import Foundation

/// The parameters of an OAuth request: the form-encoded body, then the query string, and the
/// client's credentials from the body or an HTTP Basic `Authorization` header.
struct OAuthForm {
    private let parameters: [(String, String)]
    private let basic: (id: String, secret: String)?

    /// The largest body read as a form (a JWT assertion with a long certificate chain fits).
    static let maximumBodySize = 65_536

    init(_ request: APIRequest) {
        let body = request.body.count <= Self.maximumBodySize ? String(decoding: request.body, as: UTF8.self) : ""
        parameters = APIRequest.parameters(body) + request.query
        basic = Self.basicCredentials(request.headers["authorization"])
    }

    /// The first value of a parameter (empty values count as absent).
    subscript(name: String) -> String? {
        guard let value = parameters.first(where: { $0.0 == name })?.1, !value.isEmpty else { return nil }
        return value
    }

    /// `client_id`, or the Basic user name.
    var clientId: String? { self["client_id"] ?? basic?.id }

    /// `client_secret`, or the Basic password.
    var clientSecret: String? { self["client_secret"] ?? basic?.secret }

    private static func basicCredentials(_ header: String?) -> (id: String, secret: String)? {
        guard let header, header.hasPrefix("Basic "), header.utf8.count <= 4096,
            let decoded = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
            let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else { return nil }
        // RFC 6749 §2.3.1: both parts are form-encoded before they are joined.
        return (
            APIRequest.percentDecode(String(text[..<colon]), plusIsSpace: true),
            APIRequest.percentDecode(String(text[text.index(after: colon)...]), plusIsSpace: true)
        )
    }
}
