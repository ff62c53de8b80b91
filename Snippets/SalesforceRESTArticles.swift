// snippet.hide
// The examples of SalesforceREST's overview and its "Getting started" article.
import Foundation
import SalesforceREST

func overview(accessToken: String) async throws {
    // snippet.show
    // snippet.overview
    let client = RestClient(instanceURL: URL(string: "https://example.my.salesforce.com")!,
                            tokenProvider: StaticAccessToken(accessToken))
    let id = try await client.create("Account", fields: ["Name": "Acme"])
    let accounts = try await client.allRecords("SELECT Id, Name FROM Account WHERE Industry = 'Energy'")
    // snippet.end
    // snippet.hide
    print(id, accounts)
}

func gettingStarted(instanceURL: URL, accessToken: String, records: [JSONValue]) async throws {
    // snippet.show
    // snippet.client
    let client = RestClient(instanceURL: instanceURL, tokenProvider: StaticAccessToken(accessToken))
    // snippet.end
    // snippet.query
    var page = try await client.query("SELECT Id, Name FROM Account", batchSize: 200)
    var names = try page.records().compactMap { $0["Name"]?.stringValue }
    while !page.done, let next = page.nextRecordsURL {
        page = try await client.queryMore(next)
        names += try page.records().compactMap { $0["Name"]?.stringValue }
    }
    // snippet.end
    // snippet.records
    let id = try await client.create("Contact", fields: ["LastName": "Ng"])
    try await client.update("Contact", id: id, fields: ["Title": "CTO"])
    _ = try await client.upsert("Contact", externalIdField: "Email__c", externalId: "ng@example.com", fields: ["LastName": "Ng"])
    let results = try await client.createRecords(records, allOrNone: false)   // sObject Collections, 200 per call
    try await client.delete("Contact", id: id)
    // snippet.end
    // snippet.hide
    print(names, results)
}
