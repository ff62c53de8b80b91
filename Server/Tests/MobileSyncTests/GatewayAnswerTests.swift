import FastJSON
import Foundation
import SalesforceREST
import SmartStore
import Testing

@testable import LocalForce
@testable import MobileSync

/// An answer that does not come from the API (a gateway's 504 page) leaves the outcome of a
/// write unknown: the create's attempt stays and the next run reconciles it, so a create the
/// server committed behind the gateway is not made twice (issue 47's fifth finding).
@Suite struct GatewayAnswerTests {
    static let fields = SyncOptions(fieldlist: ["Name", "Industry"])

    static func isCreate(_ request: APIRequest) -> Bool {
        request.method == "POST" && ["Account", "composite", "sobjects"].contains(request.segments.last)
    }

    static func target(_ kind: String) -> any SyncUpTarget {
        switch kind {
        case "single": SingleRecordSyncUpTarget()
        case "batch": BatchSyncUpTarget()
        default: CollectionSyncUpTarget()
        }
    }

    /// The server commits the create, then a gateway answers 504. The record stays dirty with
    /// the reason and its attempt, counted as failed (the single-record target goes on with
    /// the other records; the others fail the sync, as for a lost response); the next sync up
    /// adopts the server's record instead of creating it again. A 504 before the work: the next
    /// run finds nothing and creates it, once (once ``SyncManager/lostCreateWait`` has passed,
    /// zero here; `LostCreateTests.aCreateThatMayStillLandIsNotSentAgain` holds it back before).
    @Test(arguments: ["single", "batch", "collection"], [true, false])
    func aGatewayTimeoutLeavesTheCreateToReconcile(kind: String, afterTheWork: Bool) async throws {
        try await withHarness(lostCreateWait: .zero) { harness in
            let target = Self.target(kind)
            let record = try await harness.store.createLocally(["Name": "Behind the gateway"], objectType: "Account", in: "accounts")
            let other = try await harness.store.createLocally(["Name": "Other"], objectType: "Account", in: "accounts")
            await harness.localForce.faults.schedule(afterTheWork ? .gatewayTimeoutAfter : .gatewayTimeoutBefore) {
                Self.isCreate($0) && ($0.segments.last != "Account" || String(decoding: $0.body, as: UTF8.self).contains("gateway"))
            }
            let first = try await harness.manager.syncUp(target: target, options: Self.fields, soupName: "accounts")
            let entryId = try #require(record["_soupEntryId"]?.int64Value)
            let pending = try await #require(try harness.store.retrieve([entryId], from: "accounts").first)
            #expect(pending["__local__"] == true && pending["__create_attempt__"] != nil, "\(pending)")
            if kind == "single" {
                #expect(first.status == .done && first.failedRecordCount == 1)
                #expect(pending["__last_error__"]?.stringValue?.contains("OUTCOME_UNKNOWN") == true, "\(pending)")
                let sent = try await #require(try harness.store.retrieve([other["_soupEntryId"]?.int64Value ?? -1], from: "accounts").first)
                #expect(sent["__local__"] == false)
            } else {
                #expect(first.status == .failed)
            }
            let second = try await harness.manager.syncUp(target: target, options: Self.fields, soupName: "accounts")
            #expect(second.status == .done && second.failedRecordCount == 0)
            let names = try await harness.client.allRecords("SELECT Name FROM Account ORDER BY Name").compactMap { $0["Name"]?.stringValue }
            #expect(names == ["Behind the gateway", "Other"])
            let synced = try await #require(try harness.store.retrieve([entryId], from: "accounts").first)
            #expect(synced["__local__"] == false && synced["Id"]?.stringValue?.hasPrefix("001") == true, "\(synced)")
        }
    }

    /// What an answer is: Salesforce's error list means nothing was done, a gateway's page (or
    /// nothing) on a 5xx or 408 leaves it unknown, a refusal is never unknown.
    @Test func whichAnswersLeaveTheOutcomeUnknown() {
        let salesforce: JSONValue = [["errorCode": "SERVER_UNAVAILABLE", "message": "down"]]
        #expect(!SyncUpResponse(status: 503, body: salesforce).outcomeIsUnknown)
        #expect(SyncUpResponse(status: 504).outcomeIsUnknown)
        #expect(SyncUpResponse(status: 502, body: ["message": "Bad gateway"]).outcomeIsUnknown)
        #expect(SyncUpResponse(status: 408).outcomeIsUnknown)
        #expect(!SyncUpResponse(status: 400).outcomeIsUnknown)
        #expect(!SyncUpResponse(status: 412).outcomeIsUnknown)
        #expect(!SyncUpResponse(status: 201, body: ["id": "001"]).outcomeIsUnknown)
    }
}
