import FastJSON
import Foundation
import Testing

@testable import LocalForce

/// Task and Event, whose What and Who are polymorphic, read with TYPEOF.
@Suite struct TypeOfTests {
    @Test func typeOfReadsEachRelatedRecordFromItsOwnObject() async throws {
        try await withServer { server in
            let account = try await server.create("Account", ["Name": "Acme", "Phone": "555-0100"])
            let opportunity = try await server.create(
                "Opportunity", ["Name": "Deal", "StageName": "Prospecting", "CloseDate": "2026-01-01", "Amount": 1000])
            let contact = try await server.create("Contact", ["LastName": "Ng", "Email": "ng@example.com"])
            let lead = try await server.create("Lead", ["LastName": "Lee", "Company": "Lee Co"])
            _ = try await server.create("Task", ["Subject": "Call", "WhatId": .string(account), "WhoId": .string(contact)])
            _ = try await server.create("Task", ["Subject": "Quote", "WhatId": .string(opportunity), "WhoId": .string(lead)])
            _ = try await server.create("Task", ["Subject": "Alone"])
            _ = try await server.create(
                "Event",
                [
                    "Subject": "Visit", "WhatId": .string(account), "StartDateTime": "2026-01-02T10:00:00Z",
                    "EndDateTime": "2026-01-02T11:00:00Z",
                ])

            let reply = try await server.query(
                "SELECT Subject, TYPEOF What WHEN Account THEN Name, Phone WHEN Opportunity THEN Amount ELSE Name END, TYPEOF Who WHEN Contact THEN Email ELSE Name END FROM Task ORDER BY Subject"
            )
            #expect(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
            let records = reply.json?["records"]?.arrayValue ?? []
            #expect(records.map { $0["Subject"] } == ["Alone", "Call", "Quote"])
            #expect(records[0]["What"] == .null && records[0]["Who"] == .null)
            let call = records[1]
            #expect(call["What"]?["attributes"]?["type"] == "Account")
            #expect(call["What"]?["Name"] == "Acme" && call["What"]?["Phone"] == "555-0100")
            #expect(call["Who"]?["attributes"]?["type"] == "Contact" && call["Who"]?["Email"] == "ng@example.com")
            let quote = records[2]
            #expect(quote["What"]?["attributes"]?["type"] == "Opportunity" && quote["What"]?["Amount"]?.doubleValue == 1000)
            #expect(quote["What"]?["Name"] == nil)
            #expect(quote["Who"]?["attributes"]?["type"] == "Lead" && quote["Who"]?["Name"] == "Lee")

            let events = try await server.query("SELECT Subject, TYPEOF What WHEN Account THEN Name END FROM Event")
            #expect(events.json?["records"]?.arrayValue?.first?["What"]?["Name"] == "Acme")
            let children = try await server.query("SELECT Name, (SELECT Subject FROM Tasks), (SELECT Subject FROM Events) FROM Account")
            #expect(children.json?["records"]?.arrayValue?.first?["Tasks"]?["totalSize"] == 1)
            #expect(children.json?["records"]?.arrayValue?.first?["Events"]?["totalSize"] == 1)
            let nested = try await server.query(
                "SELECT Name, (SELECT Subject, toLabel(Status), TYPEOF Who WHEN Contact THEN Email END FROM Tasks) FROM Account")
            let task = nested.json?["records"]?.arrayValue?.first?["Tasks"]?["records"]?.arrayValue?.first
            #expect(
                task?["Status"] == "Not Started" && task?["Who"]?["Email"] == "ng@example.com",
                "\(String(decoding: nested.body, as: UTF8.self))")
        }
    }

    @Test func polymorphicPathsAndWrongTypesAreRefused() async throws {
        try await withServer { server in
            let plain = try await server.query("SELECT What.Name FROM Task")
            #expect(plain.status == 400 && plain.errorCode == "INVALID_FIELD")
            #expect(plain.message?.contains("TYPEOF What") == true)
            let wrongType = try await server.query("SELECT TYPEOF What WHEN Lead THEN Name END FROM Task")
            #expect(wrongType.status == 400 && wrongType.errorCode == "INVALID_TYPE")
            let wrongField = try await server.query("SELECT TYPEOF What WHEN Account THEN Nope__c END FROM Task")
            #expect(wrongField.status == 400 && wrongField.errorCode == "INVALID_FIELD")
            let notPolymorphic = try await server.query("SELECT TYPEOF Nothing WHEN Account THEN Name END FROM Task")
            #expect(notPolymorphic.status == 400)
            let contact = try await server.create("Contact", ["LastName": "Ng"])
            let misplaced = try await server.send("POST", "sobjects/Task", json: ["Subject": "x", "WhatId": .string(contact)])
            #expect(misplaced.status == 400 && misplaced.errorCode == "FIELD_INTEGRITY_EXCEPTION")
        }
    }
}
