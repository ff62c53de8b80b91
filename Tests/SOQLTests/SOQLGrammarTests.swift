import Testing

@testable import SOQL

/// The whole SOQL grammar: queries in the shape of the examples of Salesforce's SOQL and SOSL
/// reference (one per construct), each parsed, printed back identically, and re-parsed to the
/// same query.
@Suite struct SOQLGrammarTests {
    /// Written in the printer's canonical form (keywords upper-case, single spaces), so printing
    /// the parsed query gives the text back.
    static let golden: [String] = [
        // Aggregates, aliases, GROUP BY, HAVING.
        "SELECT COUNT() FROM Contact",
        "SELECT COUNT(Id) FROM Account WHERE Name LIKE 'a%'",
        "SELECT COUNT_DISTINCT(Company) FROM Lead",
        "SELECT AVG(Amount) FROM Opportunity",
        "SELECT CampaignId, AVG(Amount) FROM Opportunity GROUP BY CampaignId",
        "SELECT MIN(CreatedDate), FirstName, LastName FROM Contact GROUP BY FirstName, LastName",
        "SELECT MAX(Budgeted_Revenue__c) FROM Campaign",
        "SELECT SUM(Amount) FROM Opportunity WHERE IsClosed = false AND Probability > 60",
        "SELECT LeadSource, COUNT(Name) FROM Lead GROUP BY LeadSource",
        "SELECT LeadSource, COUNT(Name) cnt FROM Lead GROUP BY LeadSource HAVING COUNT(Name) > 100",
        "SELECT Name, COUNT(Id) FROM Account GROUP BY Name HAVING COUNT(Id) > 1",
        "SELECT LeadSource ls, COUNT(Name) c FROM Lead GROUP BY LeadSource ORDER BY COUNT(Name) DESC",
        "SELECT LeadSource, COUNT(Name) cnt FROM Lead GROUP BY ROLLUP(LeadSource)",
        "SELECT Status, LeadSource, COUNT(Name) cnt FROM Lead GROUP BY ROLLUP(Status, LeadSource)",
        "SELECT Type, BillingCountry, GROUPING(Type) grpType, GROUPING(BillingCountry) grpCty, COUNT(Id) accts FROM Account GROUP BY CUBE(Type, BillingCountry) ORDER BY GROUPING(Type), GROUPING(BillingCountry)",
        "SELECT Name, MAX(Amount), MIN(Amount) FROM Opportunity GROUP BY Name",
        "SELECT Name, MAX(Amount) maxAmount, MIN(Amount) minAmount FROM Opportunity GROUP BY Name",
        // Date functions.
        "SELECT CALENDAR_YEAR(CreatedDate), SUM(Amount) FROM Opportunity GROUP BY CALENDAR_YEAR(CreatedDate)",
        "SELECT CreatedDate, Amount FROM Opportunity WHERE CALENDAR_YEAR(CreatedDate) = 2009",
        "SELECT HOUR_IN_DAY(convertTimezone(CreatedDate)), SUM(Amount) FROM Opportunity GROUP BY HOUR_IN_DAY(convertTimezone(CreatedDate))",
        "SELECT Id FROM Opportunity WHERE CALENDAR_MONTH(CloseDate) IN (1, 2, 3) AND FISCAL_YEAR(CloseDate) = 2024",
        "SELECT DAY_ONLY(CreatedDate) day, COUNT(Id) FROM Case GROUP BY DAY_ONLY(CreatedDate)",
        "SELECT WEEK_IN_YEAR(CreatedDate), DAY_IN_WEEK(CreatedDate), DAY_IN_MONTH(CreatedDate), DAY_IN_YEAR(CreatedDate), COUNT(Id) FROM Task GROUP BY WEEK_IN_YEAR(CreatedDate), DAY_IN_WEEK(CreatedDate), DAY_IN_MONTH(CreatedDate), DAY_IN_YEAR(CreatedDate)",
        // Conversions and formatting.
        "SELECT Company, toLabel(Recordtype.Name) FROM Lead",
        "SELECT Company, toLabel(Status) FROM Lead WHERE toLabel(Status) = 'le Draft'",
        "SELECT Id, convertCurrency(AnnualRevenue) FROM Account",
        "SELECT Id, Name FROM Opportunity WHERE Amount > USD5000",
        "SELECT Id FROM Opportunity WHERE Amount > USD5000.50",
        "SELECT FORMAT(Amount) Amt, FORMAT(CloseDate) FROM Opportunity",
        "SELECT amount, FORMAT(amount) Amt, convertCurrency(amount) convertedAmount, FORMAT(convertCurrency(amount)) convertedCurrency FROM Opportunity WHERE Id = '006R00000024gDtIAI'",
        "SELECT FORMAT(MIN(CloseDate)) Amt FROM Opportunity",
        // Location.
        "SELECT Name, Location__c FROM Warehouse__c WHERE DISTANCE(Location__c, GEOLOCATION(37.775, -122.418), 'mi') < 20",
        "SELECT Name, StreetAddress__c FROM Warehouse__c WHERE DISTANCE(Location__c, GEOLOCATION(37.775, -122.418), 'mi') < 20 ORDER BY DISTANCE(Location__c, GEOLOCATION(37.775, -122.418), 'mi') LIMIT 10",
        // TYPEOF and FIELDS().
        "SELECT TYPEOF What WHEN Account THEN Phone, NumberOfEmployees WHEN Opportunity THEN Amount, CloseDate ELSE Name, Email END FROM Event",
        "SELECT Id, TYPEOF Who WHEN Contact THEN Email WHEN Lead THEN Company END, Subject FROM Task",
        "SELECT Id, (SELECT TYPEOF What WHEN Account THEN Name END FROM Tasks) FROM Account",
        "SELECT FIELDS(ALL) FROM Account LIMIT 200",
        "SELECT FIELDS(STANDARD) FROM Account",
        "SELECT Name, Id, FIELDS(CUSTOM) FROM Account LIMIT 200",
        "SELECT Id, (SELECT FIELDS(ALL) FROM Contacts LIMIT 200) FROM Account",
        // WITH, USING SCOPE, FOR, UPDATE.
        "SELECT Id, (SELECT LastName FROM Contacts), (SELECT Description FROM Opportunities) FROM Account WITH SECURITY_ENFORCED",
        "SELECT Id FROM Account WHERE Name = 'Acme' WITH USER_MODE",
        "SELECT Id FROM Account WITH SYSTEM_MODE",
        "SELECT Title FROM KnowledgeArticleVersion WHERE PublishStatus = 'online' WITH DATA CATEGORY Geography__c ABOVE usa__c",
        "SELECT Title FROM Question WHERE LastReplyDate > 2005-10-08T01:02:03Z WITH DATA CATEGORY Geography__c AT (usa__c, uk__c)",
        "SELECT UrlName FROM KnowledgeArticleVersion WHERE PublishStatus = 'draft' WITH DATA CATEGORY Geography__c AT usa__c AND Product__c ABOVE_OR_BELOW mobile_phones__c",
        "SELECT Id FROM Account WITH RecordVisibilityContext (maxDescriptorPerRecord=100, supportsDomains=true, supportsDelegates=true)",
        "SELECT Id FROM Product2 WITH PricebookId = '01sxx0000000001AAA'",
        "SELECT Title FROM KnowledgeArticleVersion WHERE PublishStatus = 'online' AND Language = 'en_US' WITH DATA CATEGORY Geography__c BELOW europe__c",
        "SELECT Id, Name FROM Account USING SCOPE mine",
        "SELECT Id FROM Case USING SCOPE everything WHERE Status = 'New'",
        "SELECT Name, ID FROM Contact LIMIT 1 FOR VIEW",
        "SELECT Name, ID FROM Contact LIMIT 1 FOR REFERENCE",
        "SELECT Id FROM Account LIMIT 2 FOR UPDATE",
        "SELECT Title FROM FAQ__kav WHERE PublishStatus = 'online' AND Language = 'en_US' AND KnowledgeArticleVersion = 'ka230000000PCiy' UPDATE TRACKING",
        "SELECT Title FROM FAQ__kav WHERE PublishStatus = 'online' AND Language = 'en_US' AND KnowledgeArticleVersion = 'ka230000000PCiy' UPDATE VIEWSTAT",
        // ORDER BY, NULLS, OFFSET, semi-joins, relationships.
        "SELECT Name FROM Account ORDER BY Name DESC NULLS LAST",
        "SELECT Name FROM Account WHERE Industry = 'Media' ORDER BY BillingPostalCode ASC NULLS LAST LIMIT 125 OFFSET 100",
        "SELECT Id, Name FROM Account WHERE Id IN (SELECT AccountId FROM Opportunity WHERE StageName = 'Closed Lost')",
        "SELECT Id FROM Account WHERE Id NOT IN (SELECT AccountId FROM Opportunity WHERE IsClosed = false)",
        "SELECT Id, Name, Account.Name FROM Contact WHERE Account.Industry = 'media'",
        "SELECT Name, (SELECT LastName FROM Contacts ORDER BY LastName LIMIT 5) FROM Account",
        "SELECT Id FROM Account WHERE CreatedDate = LAST_N_DAYS:365 AND MSP1__c INCLUDES ('AAA;BBB', 'CCC')",
    ]

    @Test(arguments: golden)
    func parsesAndPrintsIdentically(text: String) throws {
        let query = try SOQLParser.parse(text)
        #expect(query.description == text)
        #expect(try SOQLParser.parse(query.description) == query)
    }

    @Test func aliasesInFromReadThroughTheirRelationships() throws {
        let query = try SOQLParser.parse("SELECT COUNT() FROM Contact c, c.Account a WHERE a.Name = 'MyriadPubs'")
        #expect(query.fromRelationships.isEmpty && query.alias == nil)
        #expect(query.condition == .comparison(FieldPath(["Account", "Name"]), .equal, .string("MyriadPubs")))
        #expect(query.description == "SELECT COUNT() FROM Contact WHERE Account.Name = 'MyriadPubs'")
        #expect(try SOQLParser.parse(query.description) == query)
        // An alias equal to a relationship's name is spent once, not on every parse.
        let parent = try SOQLParser.parse("SELECT Parent.Parent.Name FROM Account Parent")
        #expect(parent.description == "SELECT Parent.Name FROM Account")
        #expect(try SOQLParser.parse(parent.description) == parent)
    }

    @Test func structureOfTheNewClauses() throws {
        let query = try SOQLParser.parse(
            "SELECT LeadSource, COUNT(Name) cnt FROM Lead USING SCOPE mine WHERE IsConverted = false WITH SECURITY_ENFORCED GROUP BY ROLLUP(LeadSource) HAVING COUNT(Name) > 1 ORDER BY LeadSource"
        )
        #expect(query.isAggregate)
        #expect(query.scope == "mine")
        #expect(query.with == [.securityEnforced])
        #expect(query.groupBy == GroupBy(kind: .rollup, items: [.field(FieldPath(["LeadSource"]))]))
        #expect(query.selectItems[1] == .function(FunctionCall("COUNT", [.field(FieldPath(["Name"]))]), alias: "cnt"))
        #expect(query.having == .functionComparison(FunctionCall("COUNT", [.field(FieldPath(["Name"]))]), .greaterThan, .number("1")))
        let typeOf = try SOQLParser.parse("SELECT TYPEOF What WHEN Account THEN Phone ELSE Name END FROM Event")
        #expect(
            typeOf.selectItems == [
                .typeOf(
                    TypeOf(
                        relationship: "What", branches: [.init(object: "Account", fields: [FieldPath(["Phone"])])],
                        elseFields: [FieldPath(["Name"])]))
            ])
        #expect(!typeOf.isAggregate)
        #expect(try !SOQLParser.parse("SELECT toLabel(Status), FORMAT(Amount) a FROM Opportunity").isAggregate)
        #expect(try SOQLParser.parse("SELECT COUNT() FROM Account").isCountOnly)
        #expect(try !SOQLParser.parse("SELECT COUNT() FROM Account").isAggregate)
    }

    @Test(arguments: [
        ("SELECT Name n FROM Account", "Only aggregate expressions use field aliasing"),
        ("SELECT COUNT(), Name FROM Account", "COUNT() must be the only element"),
        ("SELECT foo(Name) FROM Account", "unexpected token"),
        ("SELECT COUNT(Id, Name) FROM Account", "wrong number or kind of arguments for COUNT()"),
        ("SELECT Id FROM Warehouse__c WHERE DISTANCE(Location__c, GEOLOCATION(1, 2), 'miles') < 20", "arguments for DISTANCE()"),
        ("SELECT TYPEOF What ELSE Name END FROM Event", "unexpected token"),
        ("SELECT FIELDS(SOME) FROM Account", "unexpected token: SOME"),
        ("SELECT Id FROM Account GROUP BY CUBE(Name", "unexpected token"),
        ("SELECT Id FROM Account WITH DATA CATEGORY Geo__c NEAR usa__c", "unexpected token: NEAR"),
        ("SELECT Id FROM Account UPDATE SOMETHING", "unexpected token: SOMETHING"),
        ("SELECT Id FROM Account USING everything", "unexpected token: everything"),
        ("SELECT Id, (SELECT Id, (SELECT Id FROM Contacts) FROM Contacts) FROM Account", "unexpected token: ("),
        ("SELECT Id, (SELECT COUNT() FROM Contacts) FROM Account", "unexpected token: COUNT"),
        ("SELECT Id, (SELECT Name n FROM Contacts) FROM Account", "Only aggregate expressions use field aliasing"),
        ("SELECT Title FROM FAQ__kav UPDATE TRACKING FOR VIEW", "unexpected token: FOR"),
        ("SELECT Industry, COUNT(Id) FROM Account GROUP BY Industry HAVING Name = 'A'", "must be grouped"),
        ("SELECT Name, COUNT(Id) FROM Account", "Field must be grouped or aggregated: Name"),
        ("SELECT Name, Industry, COUNT(Id) FROM Account GROUP BY Industry", "Field must be grouped or aggregated: Name"),
        ("SELECT CALENDAR_YEAR(CreatedDate), COUNT(Id) FROM Account GROUP BY CALENDAR_MONTH(CreatedDate)", "must be grouped"),
    ])
    func refusesWithSalesforcesErrors(text: String, message: String) {
        do {
            _ = try SOQLParser.parse(text)
            Issue.record("parsed: \(text)")
        } catch {
            #expect(error.code == .malformedQuery)
            #expect(error.message.contains(message), "\(error)")
        }
    }

    @Test func deeplyNestedSubqueriesAreRefusedAtOnce() {
        let deep =
            String(repeating: "SELECT Id, (", count: 5000) + "SELECT Id FROM Contacts" + String(repeating: ") FROM Account", count: 5000)
        #expect(throws: SOQLError.self) { try SOQLParser.parse(deep) }
    }

    @Test func nestedFunctionsCountTowardTheNestingLimit() {
        let deep = String(repeating: "FORMAT(", count: 150) + "Amount" + String(repeating: ")", count: 150)
        #expect(throws: SOQLError.self) { try SOQLParser.parse("SELECT \(deep) FROM Opportunity") }
    }
}
