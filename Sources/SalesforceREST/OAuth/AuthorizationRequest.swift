import Crypto
public import Foundation
import SalesforceWire

/// One run of the web-server flow with PKCE (RFC 7636): the URL to open in a browser, and the
/// secrets to finish with — the code verifier, and the state the callback must echo.
public struct AuthorizationRequest: Sendable {
    /// The authorize page to open in a browser.
    public let url: URL
    /// The redirect URI the callback arrives at.
    public let redirectURI: String
    /// PKCE's code verifier: 64 random URL-safe characters, sent only with the code.
    public let codeVerifier: String
    /// The random value the callback must carry back (against forged callbacks).
    public let state: String

    init(loginURL: URL, clientId: String, redirectURI: String, scopes: [String]) throws(RestError) {
        codeVerifier = Self.randomText(bytes: 48)
        state = Self.randomText(bytes: 16)
        self.redirectURI = redirectURI
        let challenge = Base64URL.encode(SHA256.hash(data: Array(codeVerifier.utf8)))
        guard var components = URLComponents(url: loginURL, resolvingAgainstBaseURL: false) else {
            throw RestError.invalidResponse("bad login URL \(loginURL)")
        }
        components.path = OAuthClient.endpointPath(loginURL, "authorize")
        components.queryItems = [
            URLQueryItem(name: "response_type", value: "code"), URLQueryItem(name: "client_id", value: clientId),
            URLQueryItem(name: "redirect_uri", value: redirectURI), URLQueryItem(name: "scope", value: scopes.joined(separator: " ")),
            URLQueryItem(name: "state", value: state), URLQueryItem(name: "code_challenge", value: challenge),
            URLQueryItem(name: "code_challenge_method", value: "S256"),
        ]
        guard let url = components.url else { throw RestError.invalidResponse("bad login URL \(loginURL)") }
        self.url = url
    }

    /// The authorization code of a callback to ``redirectURI``.
    ///
    /// - Throws: ``RestError/oauth(error:description:)`` when the callback carries an error
    ///   (`access_denied` when the user denied access), or when its state is not this
    ///   request's (a forged or stale callback), or it has no code.
    public func code(fromCallbackQuery query: [String: String]) throws(RestError) -> String {
        if let error = query["error"] {
            throw RestError.oauth(error: error, description: query["error_description"] ?? "the authorization was refused")
        }
        guard query["state"] == state else {
            throw RestError.oauth(error: "invalid_state", description: "the callback's state is not this login's")
        }
        guard let code = query["code"], !code.isEmpty else {
            throw RestError.oauth(error: "invalid_request", description: "the callback carries no code")
        }
        return code
    }

    static func randomText(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URL.encode((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }
}
