// The examples in the doc comments of FastJSON, SOQL, SalesforceWire, SalesforceREST and
// SalesforceStreaming (the symbol reference).
import FastJSON
import Foundation
import SOQL
import SalesforceREST
import SalesforceStreaming
import SalesforceWire

func values() throws {
    // snippet.jsonValue
    let account: JSONValue = ["Id": "001xx", "Name": "Acme", "NumberOfEmployees": 12]
    let name = account["Name"]?.stringValue  // "Acme"
    // snippet.end
    print(name ?? "")
    // snippet.soql
    let query = try SOQLParser.parse("SELECT Id, Account.Name FROM Contact WHERE LastName LIKE 'S%' ORDER BY LastName LIMIT 10")
    let object = query.object            // "Contact"
    let text = query.description         // the query printed back
    // snippet.end
    print(object, text)
}

func composite(accountURL: String, lastModified: Int64) {
    // snippet.composite
    var update = CompositeSubrequest(referenceId: "r0", method: "PATCH", url: accountURL, body: ["Name": "Acme"])
    update.unmodifiedSince = lastModified   // LEAVE_IF_CHANGED: 412 if changed on the server since
    // snippet.end
    print(update)
}

func loggingIn(query: [String: String]) async throws {
    // snippet.oauthClient
    let oauth = OAuthClient(loginURL: URL(string: "https://login.salesforce.com")!, clientId: "3MVG9…",
                            redirectURI: "http://127.0.0.1:1717/OauthRedirect")
    let login = try oauth.authorizationRequest()       // open login.url in a browser
    let code = try login.code(fromCallbackQuery: query) // the redirect's query
    let credentials = try await oauth.exchange(code: code, for: login)
    let client = await RestClient(session: OAuthSession(credentials: credentials, client: oauth))
    // snippet.end
    print(client)
}

func renewing(stored: OAuthCredentials, credentialStore: some CredentialStore & Sendable) async throws {
    // snippet.oauthSession
    let session = OAuthSession(credentials: stored, client: OAuthClient(for: stored)) { renewed in
        try? credentialStore.save(renewed, account: "default")
    }
    let client = await RestClient(session: session)
    // snippet.end
    print(client)
}

func querying() async throws {
    // snippet.restClient
    let client = RestClient(instanceURL: URL(string: "http://127.0.0.1:8080")!, tokenProvider: StaticAccessToken("secret"))
    let page = try await client.query("SELECT Id, Name FROM Account")
    // snippet.end
    print(page.totalSize)
}

func handle(_ event: StreamingEvent) { print(event) }

func streaming(restClient: RestClient, lastReplayId: Int64) async throws {
    // snippet.streaming
    let streaming = StreamingClient(client: restClient)
    try await streaming.handshake()
    try await streaming.subscribe("/data/AccountChangeEvent", from: .after(lastReplayId))
    while true {
        for event in try await streaming.connect() { handle(event) }  // each connect is one long poll
    }
    // snippet.end
}
