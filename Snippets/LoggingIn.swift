// snippet.hide
// The examples of SalesforceREST's "Logging in" article.
import Foundation
import SalesforceREST

func webServerFlow(consumerKey: String, callbackQuery: [String: String]) async throws -> OAuthCredentials {
    // snippet.show
    // snippet.webServer
    let oauth = OAuthClient(loginURL: URL(string: "https://login.salesforce.com")!,
                            clientId: consumerKey, redirectURI: "http://127.0.0.1:1717/OauthRedirect")
    let login = try oauth.authorizationRequest()          // scopes "api refresh_token" by default
    // Open login.url in a browser; the redirect comes back with ?code=…&state=…
    let code = try login.code(fromCallbackQuery: callbackQuery)
    let credentials = try await oauth.exchange(code: code, for: login)
    // snippet.end
    // snippet.hide
    return credentials
}


func serverFlows(loginURL: URL, myDomainURL: URL, consumerKey: String, secret: String, pem: String) async throws {
    // snippet.show
    // snippet.server
    let server = OAuthClient(loginURL: loginURL, clientId: consumerKey)
    let credentials = try await server.jwtBearer(username: "integration@example.com", privateKeyPEM: pem)

    let app = OAuthClient(loginURL: myDomainURL, clientId: consumerKey, clientSecret: secret)
    let appCredentials = try await app.clientCredentials()
    // snippet.end
    // snippet.hide
    print(appCredentials)
    try await sessions(credentials: credentials, oauth: server, server: server, store: FileCredentialStore(directory: myDomainURL), pem: pem)
}

func sessions(credentials: OAuthCredentials, oauth: OAuthClient, server: OAuthClient, store: some CredentialStore, pem: String)
    async throws
{
    // snippet.show
    // snippet.sessions
    let session = OAuthSession(credentials: credentials, client: oauth) { renewed in
        try? store.save(renewed, account: "default")        // keep the newest tokens
    }
    let client = await RestClient(session: session)

    // JWT and client credentials renew with the grant itself:
    let serverSession = OAuthSession(credentials: credentials) { _ in
        try await server.jwtBearer(username: "integration@example.com", privateKeyPEM: pem)
    }
    // snippet.end
    // snippet.hide
    print(client, serverSession)
}
