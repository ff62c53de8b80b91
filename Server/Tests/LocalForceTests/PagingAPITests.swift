import FastJSON
import Foundation
import Testing

@testable import LocalForce

/// The plain paging REST API: `GET /api/{object}?pageIndex=&pageSize=&key=`.
@Suite struct PagingAPITests {
    @Test func pagesAreSlicesOfTheKeyOrder() async throws {
        try await withServer { server in
            for (name, employees) in [("b", 30), ("B", 10), ("a", 20), ("c", 40), ("ä", 5)] {
                _ = try await server.create("Account", ["Name": .string(name), "NumberOfEmployees": .int(Int64(employees))])
            }
            _ = try await server.create("Account", ["Name": "no employees"]) // null key: left out when paging by it
            // Text keys compare byte-wise: "B" < "a" < "b" < "c" < "no employees" < "ä".
            var names: [String] = []
            for index in 0..<3 {
                let reply = try await server.send("GET", "/api/Account?pageIndex=\(index)&pageSize=2&key=Name&fields=Name")
                #expect(reply.status == 200)
                #expect(reply.json?["totalSize"] == 6 && reply.json?["pageIndex"] == .int(Int64(index)) && reply.json?["key"] == "Name")
                let records = reply.json?["records"]?.arrayValue ?? []
                #expect(records.allSatisfy { $0.objectValue?.keys.sorted() == ["Name"] })
                names += records.compactMap { $0["Name"]?.stringValue }
            }
            #expect(names == ["B", "a", "b", "c", "no employees", "ä"])
            // Integer keys compare numerically; records without the key are left out; bare arrays on request.
            let numeric = try await server.send(
                "GET", "/api/Account?pageSize=10&key=NumberOfEmployees&fields=Name,NumberOfEmployees&envelope=false")
            #expect(numeric.json?.arrayValue?.compactMap { $0["NumberOfEmployees"]?.int64Value } == [5, 10, 20, 30, 40])
            // Past the end: an empty page. Default key Id, all fields.
            let empty = try await server.send("GET", "/api/Account?pageIndex=7&pageSize=2")
            #expect(empty.json?["records"] == [] && empty.json?["totalSize"] == 6)
            let all = try await server.send("GET", "/api/Account?pageSize=2000")
            let ids = all.json?["records"]?.arrayValue?.compactMap { $0["Id"]?.stringValue } ?? []
            #expect(ids.count == 6 && ids == ids.sorted() && all.json?["records"]?.arrayValue?.first?["attributes"] == nil)
        }
    }

    @Test func deletedRecordsLeaveThePages() async throws {
        try await withServer { server in
            var ids: [String] = []
            for index in 0..<5 { ids.append(try await server.create("Account", ["Name": .string("A\(index)")])) }
            #expect(try await server.send("DELETE", "sobjects/Account/\(ids[1])").status == 204)
            let reply = try await server.send("GET", "/api/Account?pageSize=10&fields=Name")
            #expect(reply.json?["records"]?.arrayValue?.compactMap { $0["Name"]?.stringValue } == ["A0", "A2", "A3", "A4"])
        }
    }

    @Test func badRequestsAreTypedErrors() async throws {
        try await withServer { server in
            #expect(try await server.send("GET", "/api/Account", authorized: false).status == 401)
            #expect(try await server.send("GET", "/api/Nope").status == 404)
            #expect(try await server.send("POST", "/api/Account").status == 405)
            for query in ["pageIndex=-1", "pageSize=0", "pageSize=2001", "pageSize=ten", "base=2", "base=1&pageIndex=0"] {
                let reply = try await server.send("GET", "/api/Account?\(query)")
                #expect(reply.status == 400 && reply.errorCode == "INVALID_PARAMETER", "\(query)")
            }
            let badKey = try await server.send("GET", "/api/Account?key=Bogus")
            #expect(badKey.status == 400 && badKey.errorCode == "INVALID_FIELD")
            // A key is an identifier from the schema, never SQL: injection attempts are unknown fields.
            let injected = try await server.send("GET", "/api/Account?key=Name%22%20--&fields=Name")
            #expect(injected.status == 400 && injected.errorCode == "INVALID_FIELD")
            #expect(try await server.send("GET", "/api/Account?fields=Name,Nope").errorCode == "INVALID_FIELD")
        }
    }
}
