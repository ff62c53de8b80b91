import FastJSON
import SalesforceREST
import Testing

/// `RestClient.allRecords` follows every `nextRecordsUrl`.
@Suite struct RestClientQueryTests {
    @Test func allRecordsFollowsEveryPage() async throws {
        try await withHarness { harness in
            let ids = try await harness.createAccounts(450)
            let requests = harness.client.requestCount
            let records = try await harness.client.allRecords("SELECT Id FROM Account", batchSize: 200)
            #expect(harness.client.requestCount - requests == 3)
            #expect(records.compactMap { $0["Id"]?.stringValue }.sorted() == ids.sorted())
            #expect(try await harness.client.allRecords("SELECT Id FROM Account WHERE Name = 'none'").isEmpty)
        }
    }
}
