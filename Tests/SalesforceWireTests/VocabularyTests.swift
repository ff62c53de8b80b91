import FastJSON
import SalesforceWire
import Testing

@Suite struct VocabularyTests {
    @Test func subrequestRoundTripsAndCarriesItsPrecondition() throws {
        var request = CompositeSubrequest(
            referenceId: "r0", method: "PATCH", url: "/services/data/v66.0/sobjects/Account/001000000000001AAA", body: ["Name": "Acme"])
        #expect(request.unmodifiedSince == nil)
        request.unmodifiedSince = 784_111_777_123
        #expect(request.httpHeaders == ["If-Unmodified-Since": "Sun, 06 Nov 1994 08:49:37 GMT"])
        #expect(request.unmodifiedSince == 784_111_777_000)
        let read = try #require(CompositeSubrequest(json: try JSONValue(parsing: request.json.jsonBytes)))
        #expect(read == request)
        request.unmodifiedSince = nil
        #expect(request.json["httpHeaders"] == nil)
    }

    @Test func subrequestsMissingAPartAreRefused() throws {
        #expect(CompositeSubrequest(json: ["method": "GET", "url": "/x"]) == nil)
        #expect(CompositeSubrequest(json: ["method": "GET", "referenceId": "a"]) == nil)
        #expect(CompositeSubrequest(json: ["method": 1, "url": "/x", "referenceId": "a"]) == nil)
        let nullBody = try #require(CompositeSubrequest(json: ["method": "GET", "url": "/x", "referenceId": "a", "body": .null]))
        #expect(nullBody.body == .none)
        let headers = try #require(
            CompositeSubrequest(json: ["method": "GET", "url": "/x", "referenceId": "a", "httpHeaders": ["A": "b", "N": 1]]))
        #expect(headers.httpHeaders == ["A": "b"])
    }

    @Test func subresponsesAreCheckedBeforeUse() throws {
        let failed = try #require(
            CompositeSubresponse(json: [
                "referenceId": "r1", "httpStatusCode": 412,
                "body": [["errorCode": "PRECONDITION_FAILED", "message": "changed", "fields": []]],
            ]))
        #expect(!failed.isSuccess)
        #expect(failed.errors == [SalesforceErrorItem(code: "PRECONDITION_FAILED", message: "changed")])
        let created = try #require(CompositeSubresponse(json: ["referenceId": "r0", "httpStatusCode": 201, "body": ["id": "001"]]))
        #expect(created.isSuccess && created.errors.isEmpty)
        #expect(CompositeSubresponse(json: try JSONValue(parsing: Array(created.json.jsonBytes))) == created)
        for status: JSONValue in [99, 600, -1, 1e300, "200", .null] {
            #expect(CompositeSubresponse(json: ["referenceId": "r", "httpStatusCode": status]) == nil)
        }
        #expect(CompositeSubresponse(json: ["httpStatusCode": 200]) == nil)
    }

    @Test func errorItemsInBothShapes() throws {
        let item = SalesforceErrorItem(code: "REQUIRED_FIELD_MISSING", message: "Required fields are missing: [Name]", fields: ["Name"])
        #expect(item.json == ["errorCode": "REQUIRED_FIELD_MISSING", "message": "Required fields are missing: [Name]", "fields": ["Name"]])
        #expect(item.saveResultJSON["statusCode"] == "REQUIRED_FIELD_MISSING")
        #expect(SalesforceErrorItem(item.json) == item)
        #expect(SalesforceErrorItem(item.saveResultJSON) == item)
        #expect(SalesforceErrorItem(["message": "no code"]) == nil)
        #expect(item.description == "REQUIRED_FIELD_MISSING: Required fields are missing: [Name]")
    }

    @Test func idsGetTheirCaseSafeSuffix() throws {
        let id = try #require(SalesforceId("0015000000Gv7qJ"))
        #expect(id.value == "0015000000Gv7qJAAR")
        #expect(id.fifteen == "0015000000Gv7qJ")
        #expect(id.keyPrefix == "001")
        #expect(SalesforceId("0015000000Gv7qJAAR") == id)
        #expect(SalesforceId("0015000000Gv7qJAAA") == nil)
        #expect(SalesforceId("0015000000Gv7q!") == nil)
        #expect(SalesforceId("001") == nil)
    }
}
