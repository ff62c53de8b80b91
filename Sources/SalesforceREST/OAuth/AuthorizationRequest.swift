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
    /// - Throws: ``RestError/oauth(error:description:)`` when the callback's state is not this
    ///   request's (a forged or stale callback: checked first, so no other page can make the
    ///   login fail with a message of its choosing), when it carries an error (`access_denied`
    ///   when the user denied access), or when it has no code.
    public func code(fromCallbackQuery query: [String: String]) throws(RestError) -> String {
        guard isCallback(query) else {
            throw RestError.oauth(error: "invalid_state", description: "the callback's state is not this login's")
        }
        if let error = query["error"] {
            let description = query["error_description"] ?? "the authorization was refused"
            // Printable text only: the description ends up on terminals.
            throw RestError.oauth(
                error: Self.printable(error), description: Self.printable(String(description.prefix(500))))
        }
        guard let code = query["code"], !code.isEmpty else {
            throw RestError.oauth(error: "invalid_request", description: "the callback carries no code")
        }
        return code
    }

    /// The authorization code of a callback URL, as an app receives it on a custom-scheme
    /// redirect (`myapp://oauth/done?code=…&state=…`) or from `ASWebAuthenticationSession`.
    ///
    /// - Throws: ``RestError/oauth(error:description:)`` when the URL is not a redirect to
    ///   ``redirectURI`` (scheme, host and path compared), and as
    ///   ``code(fromCallbackQuery:)`` does.
    public func code(fromCallbackURL url: URL) throws(RestError) -> String {
        guard let callback = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let expected = URLComponents(string: redirectURI),
            callback.scheme?.lowercased() == expected.scheme?.lowercased(),
            (callback.host ?? "").lowercased() == (expected.host ?? "").lowercased(),
            callback.path == expected.path
        else {
            throw RestError.oauth(error: "invalid_request", description: "the callback is not a redirect to \(redirectURI)")
        }
        var query: [String: String] = [:]
        for item in callback.queryItems ?? [] where query[item.name] == nil { query[item.name] = item.value ?? "" }
        return try code(fromCallbackQuery: query)
    }

    /// Whether a redirect belongs to this login: its `state` is this request's.
    public func isCallback(_ query: [String: String]) -> Bool {
        query["state"] == state
    }

    private static func printable(_ text: String) -> String {
        let hidden: Set<Unicode.GeneralCategory> = [.control, .format]
        return String(String.UnicodeScalarView(text.unicodeScalars.filter { !hidden.contains($0.properties.generalCategory) }))
    }

    static func randomText(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URL.encode((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }
}
