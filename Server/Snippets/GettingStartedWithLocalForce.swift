// snippet.hide
// The examples of LocalForce's "Getting started" article.
import Foundation
// snippet.show
// snippet.inProcess
import LocalForce
import LocalForceHTTP

let org = try await LocalForce(database: try SQLiteDatabase(path: ":memory:"), token: "secret")
let ids = try await org.insert([["Name": "Acme"], ["Name": "Globex"]], of: "Account")
let server = try await LocalForceServer.start(org, host: "127.0.0.1", port: 0)
print(server.baseURL)              // http://127.0.0.1:<a free port>
// … point any Salesforce client at server.baseURL with the token "secret"
await server.stop()
// snippet.end
// snippet.hide
print(ids)

func customObjects() async throws {
    // snippet.show
    // snippet.schema
    let schema = try SchemaFile.load(Data("""
        {"objects": [{"name": "Project__c", "keyPrefix": "a05",
                      "fields": [{"name": "Code__c", "type": "string", "externalId": true}]}]}
        """.utf8))
    let org = try await LocalForce(schema: schema, database: try SQLiteDatabase(path: ":memory:"), token: "secret")
    // snippet.end
    // snippet.hide
    print(org)
}

func faults() async throws {
    // snippet.show
    // snippet.faults
    let faults = FaultInjection()
    let org = try await LocalForce(database: try SQLiteDatabase(path: ":memory:"), token: "secret", faults: faults)
    await faults.schedule(.dropAfter, matching: { $0.method == "POST" })   // the next create is applied, its answer lost
    // snippet.end
    // snippet.hide
    print(org)
}
