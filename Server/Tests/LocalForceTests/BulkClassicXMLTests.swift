import FastJSON
import Foundation
import Testing

@testable import LocalForce

/// Bulk API 1.0 in XML, as Salesforce documents it: jobs created and closed with `<jobInfo>`,
/// `<sObjects>` batches, `<results>` and `<queryResult>` answers, `<error>`s; the answer format
/// the Content-Type header and the job decide; the XML reader's refusals.
@Suite struct BulkClassicXMLTests {
    static let namespace = #"xmlns="http://www.force.com/2009/06/asyncapi/dataload""#

    static func post(_ server: TestServer, _ path: String, xml: String) async throws -> TestServer.Reply {
        try await BulkClassicTests.send(server, "POST", path, raw: xml, contentType: "application/xml; charset=UTF-8")
    }

    static func jobInfo(_ operation: String, _ object: String, contentType: String) -> String {
        #"<?xml version="1.0" encoding="UTF-8"?><jobInfo \#(namespace)><operation>\#(operation)</operation>"#
            + "<object>\(object)</object><contentType>\(contentType)</contentType></jobInfo>"
    }

    @Test func xmlJobsInsertAndQueryInXML() async throws {
        try await withServer { server in
            let created = try await Self.post(server, "job", xml: Self.jobInfo("insert", "Account", contentType: "XML"))
            let info = try BulkClassicTests.xml(created)
            #expect(created.status == 201 && info.name == "jobInfo" && info.childText("state") == "Open")
            #expect(info.childText("contentType") == "XML" && info.childText("operation") == "insert")
            #expect(String(decoding: created.body, as: UTF8.self).contains(Self.namespace))
            let job = try #require(info.childText("id"))
            let records = """
                <?xml version="1.0" encoding="UTF-8"?>
                <sObjects \(Self.namespace) xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
                  <sObject><Name>Fish &amp; Chips &#x263A;</Name><NumberOfEmployees>12</NumberOfEmployees></sObject>
                  <!-- a comment -->
                  <sObject><Name><![CDATA[<Tags> & more]]></Name><Industry xsi:nil="true"/></sObject>
                  <sObject><Industry>No name</Industry></sObject>
                  <sObject><Name>Bad count</Name><NumberOfEmployees>many</NumberOfEmployees></sObject>
                  <sObject><Name>Blank fields</Name><NumberOfEmployees/><Industry></Industry></sObject>
                </sObjects>
                """
            let batchReply = try await Self.post(server, "job/\(job)/batch", xml: records)
            let batch = try #require(try BulkClassicTests.xml(batchReply).childText("id"))
            #expect(batchReply.status == 201)
            let done = try await BulkClassicTests.batchDone(server, job: job, batch: batch)
            #expect(done["state"] == "Completed" && done["numberRecordsFailed"]?.int64Value == 2)
            // The batch's info in XML (the job's own format, no header).
            let status = try BulkClassicTests.xml(try await BulkClassicTests.send(server, "GET", "job/\(job)/batch/\(batch)"))
            #expect(status.name == "batchInfo" && status.childText("numberRecordsProcessed") == "5")

            let results = try BulkClassicTests.xml(try await BulkClassicTests.send(server, "GET", "job/\(job)/batch/\(batch)/result"))
            #expect(results.name == "results" && results.children.count == 5)
            #expect(results.children.map { $0.childText("success") } == ["true", "true", "false", "false", "true"])
            #expect(results.children[0].childText("created") == "true" && results.children[0].childText("id")?.hasPrefix("001") == true)
            let missing = try #require(results.children[2].children.first { $0.name == "errors" })
            #expect(missing.childText("statusCode") == "REQUIRED_FIELD_MISSING" && missing.childText("fields") == "Name")
            let badCount = try #require(results.children[3].children.first { $0.name == "errors" })
            #expect(badCount.childText("statusCode") == "INVALID_TYPE_ON_FIELD_IN_RECORD")
            let names = try await server.allRecords("SELECT Name FROM Account ORDER BY Name").map { $0["Name"] }
            #expect(names == ["<Tags> & more", "Blank fields", "Fish & Chips \u{263A}"])

            let closed = try BulkClassicTests.xml(
                try await Self.post(server, "job/\(job)", xml: "<jobInfo \(Self.namespace)><state>Closed</state></jobInfo>"))
            #expect(closed.childText("state") == "Closed" && closed.childText("numberBatchesCompleted") == "1")
            let list = try BulkClassicTests.xml(try await BulkClassicTests.send(server, "GET", "job/\(job)/batch"))
            #expect(list.name == "batchInfoList" && list.children.map(\.name) == ["batchInfo"])

            // A query job in XML: the result ids, then a result set of sObjects.
            let queryInfo = try BulkClassicTests.xml(
                try await Self.post(server, "job", xml: Self.jobInfo("query", "Account", contentType: "XML")))
            let query = try #require(queryInfo.childText("id"))
            let queryBatch = try #require(
                try BulkClassicTests.xml(
                    try await BulkClassicTests.send(
                        server, "POST", "job/\(query)/batch", raw: "SELECT Id, Name, Industry FROM Account ORDER BY Name",
                        contentType: "application/xml")
                ).childText("id"))
            #expect(try await BulkClassicTests.batchDone(server, job: query, batch: queryBatch)["state"] == "Completed")
            let ids = try BulkClassicTests.xml(try await BulkClassicTests.send(server, "GET", "job/\(query)/batch/\(queryBatch)/result"))
            #expect(ids.name == "result-list" && ids.children.count == 1)
            let set = try BulkClassicTests.xml(
                try await BulkClassicTests.send(server, "GET", "job/\(query)/batch/\(queryBatch)/result/\(ids.children[0].text)"))
            #expect(set.name == "queryResult" && set.children.count == 3)
            #expect(set.children.allSatisfy { $0.children.map(\.name) == ["type", "Id", "Name", "Industry"] })
            #expect(set.children[0].childText("type") == "Account" && set.children[0].childText("Name") == "<Tags> & more")
            #expect(set.children.allSatisfy { $0.children.last?.isNil == true })
        }
    }

    /// The Content-Type header names the format where it says JSON or XML; else the job's
    /// content type (JSON for a JSON job, XML for the rest) decides.
    @Test func theHeaderThenTheJobDecideTheFormat() async throws {
        try await withServer { server in
            let csv = try #require(
                try BulkClassicTests.xml(try await Self.post(server, "job", xml: Self.jobInfo("insert", "Account", contentType: "CSV")))
                    .childText("id"))
            #expect(
                try BulkClassicTests.xml(try await BulkClassicTests.send(server, "GET", "job/\(csv)")).childText("contentType") == "CSV")
            let asJSON = try await BulkClassicTests.send(server, "GET", "job/\(csv)", contentType: "application/json")
            #expect(asJSON.json?["id"] == .string(csv) && asJSON.headers["content-type"] == "application/json")
            let json = try await BulkClassicTests.createJob(server, ["operation": "insert", "object": "Account", "contentType": "JSON"])
            #expect(try await BulkClassicTests.send(server, "GET", "job/\(json)").json?["contentType"] == "JSON")
            let asXML = try await BulkClassicTests.send(server, "GET", "job/\(json)", contentType: "application/xml")
            #expect(try BulkClassicTests.xml(asXML).childText("contentType") == "JSON")
            // An error on a JSON job is JSON; on a CSV job, XML.
            let late = try await BulkClassicTests.send(server, "POST", "job/\(json)", json: ["state": "Opened"])
            #expect(late.status == 400 && late.json?["exceptionCode"] == "InvalidJobState")
            let lateXML = try await Self.post(server, "job/\(csv)", xml: "<jobInfo><state>Opened</state></jobInfo>")
            #expect(try lateXML.status == 400 && (BulkClassicTests.xml(lateXML)).childText("exceptionCode") == "InvalidJobState")
        }
    }

    /// Malformed XML is refused with InvalidJob (a job) or fails its batch (records); a document
    /// type declaration (entity expansion) and nesting beyond the limit are refused too.
    @Test func malformedXMLIsRefused() async throws {
        try await withServer { server in
            for body in [
                "<jobInfo><operation>insert</operation>", "<jobInfo><a></b></jobInfo>", "<jobInfo>&bogus;</jobInfo>",
                #"<!DOCTYPE x [<!ENTITY a "aaaa">]><jobInfo>&a;</jobInfo>"#, "<sObjects/>", "not xml <",
            ] {
                let reply = try await Self.post(server, "job", xml: body)
                #expect(try reply.status == 400 && (BulkClassicTests.xml(reply)).childText("exceptionCode") == "InvalidJob", "\(body)")
            }
            let job = try #require(
                try BulkClassicTests.xml(try await Self.post(server, "job", xml: Self.jobInfo("insert", "Account", contentType: "XML")))
                    .childText("id"))
            let deep = String(repeating: "<a>", count: 40) + String(repeating: "</a>", count: 40)
            for (records, message) in [
                (#"<!DOCTYPE s [<!ENTITY e "e">]><sObjects><sObject><Name>&e;</Name></sObject></sObjects>"#, "document type declaration"),
                ("<sObjects><sObject><Name>x</Name></sObject>", "unterminated"), ("<sObjects>\(deep)</sObjects>", "nesting deeper"),
                ("<sObjects><sObject><Nope__c>1</Nope__c></sObject></sObjects>", "Field name not found : Nope__c"),
                ("<records/>", "Expected sObjects"),
            ] {
                let batch = try #require(
                    try BulkClassicTests.xml(try await Self.post(server, "job/\(job)/batch", xml: records)).childText("id"))
                let done = try await BulkClassicTests.batchDone(server, job: job, batch: batch)
                #expect(done["state"] == "Failed" && done["stateMessage"]?.stringValue?.contains(message) == true, "\(done)")
            }
            #expect(try await server.allRecords("SELECT Id FROM Account").isEmpty)
        }
    }

    @Test func theReaderReadsWhatXMLAllowsAndNoMore() throws {
        let root = try BulkXMLReader.parse(
            Array(
                "\u{FEFF}<?xml version='1.0'?>\n<!-- c --><p:a x:y='1' z=\"&lt;2&gt;\"><b>&#65;&#x42;&apos;&quot;</b><c/><?pi?><![CDATA[&]]></p:a>\n"
                    .utf8))
        #expect(root.name == "a" && root.attributes == ["y": "1", "z": "<2>"] && root.text == "&")
        #expect(root.children == [BulkXMLElement(name: "b", text: "AB'\""), BulkXMLElement(name: "c")])
        for bad in [
            "", "<a>", "<a></a><b/>", "<a b=1/>", "<a>&#0;</a>", "<a>&#x110000;</a>", "<a>& b</a>", "<a><!DOCTYPE></a>", "<a b='<'/>",
            String(repeating: "<a>", count: BulkXMLReader.maximumDepth + 1)
                + String(repeating: "</a>", count: BulkXMLReader.maximumDepth + 1),
        ] {
            #expect(throws: BulkXMLError.self, "\(bad)") { try BulkXMLReader.parse(Array(bad.utf8)) }
        }
        let deepest =
            String(repeating: "<a>", count: BulkXMLReader.maximumDepth) + String(repeating: "</a>", count: BulkXMLReader.maximumDepth)
        #expect(throws: Never.self) { try BulkXMLReader.parse(Array(deepest.utf8)) }
    }
}
