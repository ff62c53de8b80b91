import Foundation
import Testing

@testable import MobileSync

/// A SOQL sync target accepts any query that returns records, completes it (Id,
/// LastModifiedDate, ORDER BY, the resync filter) without breaking it, and refuses the ones
/// that cannot be a sync down with a clear error.
@Suite struct SoqlTargetGrammarTests {
    @Test(arguments: [
        (
            "SELECT Name FROM Account WITH SECURITY_ENFORCED",
            "SELECT Id, LastModifiedDate, Name FROM Account WITH SECURITY_ENFORCED ORDER BY LastModifiedDate"
        ),
        (
            "SELECT Name FROM Account USING SCOPE mine WHERE Industry = 'Energy' WITH USER_MODE",
            "SELECT Id, LastModifiedDate, Name FROM Account USING SCOPE mine WHERE Industry = 'Energy' WITH USER_MODE ORDER BY LastModifiedDate"
        ),
        (
            "SELECT Subject, TYPEOF What WHEN Account THEN Phone ELSE Name END FROM Task",
            "SELECT Id, LastModifiedDate, Subject, TYPEOF What WHEN Account THEN Phone ELSE Name END FROM Task ORDER BY LastModifiedDate"
        ),
        ("SELECT FIELDS(ALL) FROM Account LIMIT 200", "SELECT FIELDS(ALL) FROM Account ORDER BY LastModifiedDate LIMIT 200"),
        ("SELECT FIELDS(STANDARD) FROM Account", "SELECT FIELDS(STANDARD) FROM Account ORDER BY LastModifiedDate"),
        (
            "SELECT FIELDS(CUSTOM) FROM Account LIMIT 200",
            "SELECT Id, LastModifiedDate, FIELDS(CUSTOM) FROM Account ORDER BY LastModifiedDate LIMIT 200"
        ),
        (
            "SELECT Name, toLabel(Industry), FORMAT(AnnualRevenue) revenue FROM Account WHERE CALENDAR_YEAR(CreatedDate) = 2024",
            "SELECT Id, LastModifiedDate, Name, toLabel(Industry), FORMAT(AnnualRevenue) revenue FROM Account WHERE CALENDAR_YEAR(CreatedDate) = 2024 ORDER BY LastModifiedDate"
        ),
        (
            "SELECT Name FROM Account ORDER BY Name DESC NULLS LAST FOR VIEW",
            "SELECT Id, LastModifiedDate, Name FROM Account ORDER BY Name DESC NULLS LAST FOR VIEW"
        ),
    ])
    func completesEveryKindOfRecordQuery(query: String, completed: String) throws {
        let target = try SoqlSyncDownTarget(query: query)
        #expect(target.completedQuery == completed)
    }

    @Test func theResyncFilterKeepsTheQueryIntact() throws {
        let target = try SoqlSyncDownTarget(
            query: "SELECT Name FROM Account USING SCOPE mine WHERE Industry = 'A' OR Industry = 'B' WITH SECURITY_ENFORCED")
        #expect(
            target.query(after: 1_700_000_000_000).description
                == "SELECT Id, LastModifiedDate, Name FROM Account USING SCOPE mine WHERE LastModifiedDate > 2023-11-14T22:13:20.000Z AND (Industry = 'A' OR Industry = 'B') WITH SECURITY_ENFORCED ORDER BY LastModifiedDate"
        )
    }

    @Test(arguments: [
        "SELECT COUNT() FROM Account",
        "SELECT COUNT(Id) FROM Account",
        "SELECT Industry, COUNT(Id) FROM Account GROUP BY Industry",
        "SELECT Industry FROM Account GROUP BY Industry",
        "SELECT MAX(AnnualRevenue) FROM Account",
    ])
    func refusesQueriesThatReturnNoRecords(query: String) {
        do {
            _ = try SoqlSyncDownTarget(query: query)
            Issue.record("accepted: \(query)")
        } catch SyncError.invalidTarget(let message) {
            #expect(message.hasPrefix("A sync down needs records"))
        } catch {
            Issue.record("\(error)")
        }
    }
}
