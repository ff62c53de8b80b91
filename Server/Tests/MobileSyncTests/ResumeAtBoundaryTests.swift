import FastJSON
import Foundation
import SalesforceREST
import SalesforceWire
import SmartStore
import TestLocking
import Testing

@testable import LocalForce
@testable import MobileSync

/// A sync down that failed resumes at `>=` its boundary, as a stopped one does (issue 47's
/// fourth finding): the boundary is saved per page, so records stamped exactly at it can be on
/// the page that was never fetched, and `>` would skip them for good.
@Suite struct ResumeAtBoundaryTests {
    @Test func aFailedSyncDownReadsItsBoundaryAgain() async throws {
        try await withHarness { harness in
            try await harness.createAccounts(400)
            let target = try SoqlSyncDownTarget(query: "SELECT Id, Name FROM Account", maxBatchSize: 200, lateCommitWindowMilliseconds: 0)
            let sync = try await harness.manager.createSyncDown(target: target, soupName: "accounts", name: "down")
            // The second page (a query locator) fails: FAILED, with the first page's boundary.
            let failing = Locked(true)
            await harness.localForce.faults.schedule(.unavailable, count: 1_000) { request in // its retries too
                failing.withLock { $0 } && request.method == "GET" && request.segments.contains("query")
                    && request.segments.last?.contains("-") == true
            }
            let failed = try await harness.manager.reSync(id: sync.id)
            failing.withLock { $0 = false }
            #expect(failed.status == .failed && failed.maxTimeStamp > 0, "\(failed)")
            let boundary = failed.maxTimeStamp

            let queries = Locked([String]())
            await harness.localForce.faults.observe { request, moment in
                guard moment == .received, let soql = request.query.first(where: { $0.0 == "q" })?.1 else { return }
                queries.withLock { $0.append(soql) }
            }
            let resumed = try await harness.manager.reSync(id: sync.id)
            await harness.localForce.faults.observe(nil)
            #expect(resumed.status == .done)
            // From the millisecond before the boundary: every record stamped at it comes again.
            let first = try #require(queries.withLock { $0.first })
            #expect(first.contains("> " + SalesforceTime.format(boundary - 1, zulu: true)), "\(first)")
            #expect(try harness.localRecords().count == 400)
        }
    }
}
