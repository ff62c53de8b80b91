import CompressNIO
import FastJSON
import Foundation
import LocalForceHTTP
import NIOCore
import TestSupport
import Testing

@testable import LocalForce

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// What the HTTP layer refuses is answered in Salesforce's JSON error shape with the right
/// status, and compressed bodies work both ways.
@Suite struct ProtocolErrorTests {
    /// The status line, headers (lower-cased names) and body of a raw answer.
    static func parse(_ answer: String) -> (status: String, headers: [String: String], body: String) {
        let parts = answer.components(separatedBy: "\r\n\r\n")
        var lines = (parts.first ?? "").components(separatedBy: "\r\n")
        let status = lines.isEmpty ? "" : lines.removeFirst()
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return (status, headers, parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    static func exchange(_ server: TestServer, _ text: String) async throws -> (status: String, headers: [String: String], body: String) {
        let port = try #require(server.server.baseURL.port)
        return parse(try await RawSocket.exchange(port: port, text, halfClose: false))
    }

    @Test func headsTooLargeAreRefusedWithAJSONError() async throws {
        try await withServer { server in
            let auth = "Authorization: Bearer \(TestServer.token)\r\n"
            let big = try await Self.exchange(
                server,
                "GET /services/data/v66.0/limits HTTP/1.1\r\nHost: 127.0.0.1\r\n\(auth)X-Big: \(String(repeating: "b", count: 90_000))\r\n\r\n"
            )
            #expect(big.status.hasPrefix("HTTP/1.1 431"), "\(big.status)")
            #expect(big.headers["content-type"]?.hasPrefix("application/json") == true)
            #expect(try JSONValue(parsing: Array(big.body.utf8)).arrayValue?.first?["errorCode"] == "REQUEST_HEADER_FIELDS_TOO_LARGE")
            let many = (0..<10_000).map { "X-H\($0): v\r\n" }.joined()
            let crowded = try await Self.exchange(
                server, "GET /services/data/v66.0/limits HTTP/1.1\r\nHost: 127.0.0.1\r\n\(auth)\(many)\r\n")
            #expect(crowded.status.hasPrefix("HTTP/1.1 431"), "\(crowded.status)")
            #expect(crowded.body.contains("REQUEST_HEADER_FIELDS_TOO_LARGE"))
            let garbage = try await Self.exchange(server, "GET /services/data HTTP/9.9 nonsense\r\n\r\n")
            #expect(garbage.status.hasPrefix("HTTP/1.1 400"), "\(garbage.status)")
            #expect(garbage.body.contains("INVALID_REQUEST"), "\(garbage.body)")
            // Behind a pipelined request, the error is answered after that request's answer.
            let pipelined = try await RawSocket.exchange(
                port: try #require(server.server.baseURL.port),
                "GET /services/data/v66.0/limits HTTP/1.1\r\nHost: 127.0.0.1\r\n\(auth)\r\nNOT HTTP AT ALL\r\n\r\n", halfClose: false)
            let ok = try #require(pipelined.range(of: "HTTP/1.1 200"))
            let refused = try #require(pipelined.range(of: "HTTP/1.1 400"))
            #expect(ok.lowerBound < refused.lowerBound, "\(pipelined)")
            // The server goes on serving.
            #expect(try await server.send("GET", "limits").status == 200)
        }
    }

    @Test func aRequestWithoutHostIsRefused() async throws {
        try await withServer { server in
            // (Connection: close, or the raw read would wait for the idle timeout to end the connection.)
            let answer = try await Self.exchange(server, "GET /services/data HTTP/1.1\r\nConnection: close\r\n\r\n")
            #expect(answer.status.hasPrefix("HTTP/1.1 400"), "\(answer.status)")
            #expect(answer.body.contains("INVALID_REQUEST") && answer.body.contains("Host"), "\(answer.body)")
            let withHost = try await Self.exchange(server, "GET /services/data HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            #expect(withHost.status.hasPrefix("HTTP/1.1 200"), "\(withHost.status)")
        }
    }

    /// Only HTTP/1.1 requires Host (RFC 9112): an HTTP/1.0 request without one (a health check)
    /// is answered, and its connection closes after the answer, as HTTP/1.0 has it.
    @Test func anHTTP10RequestWithoutHostIsAnswered() async throws {
        try await withServer { server in
            let versions = try await Self.exchange(server, "GET /services/data HTTP/1.0\r\n\r\n")
            #expect(versions.status.hasSuffix(" 200 OK"), "\(versions.status)")
            #expect((try? JSONValue(parsing: Array(versions.body.utf8)))?.arrayValue?.isEmpty == false, "\(versions.body)")
            let limits = try await Self.exchange(
                server, "GET /services/data/v66.0/limits HTTP/1.0\r\nAuthorization: Bearer \(TestServer.token)\r\n\r\n")
            #expect(limits.status.hasSuffix(" 200 OK") && limits.body.contains("DailyApiRequests"), "\(limits.status)")
            // Both connections were closed by the server: the reads ended there, not at their timeout.
            #expect(!versions.body.contains("[the read timed out") && !limits.body.contains("[the read timed out"))
            // Answered as HTTP/1.0: a body sent as it is produced (Bulk results) is not chunked, a
            // framing HTTP/1.0 does not know; it ends with the connection.
            _ = try await server.create("Account", ["Name": "Streamed"])
            let (job, _) = try await BulkClient(server: server).query("SELECT Id, Name FROM Account")
            let results = try await Self.exchange(
                server,
                "GET /services/data/v66.0/jobs/query/\(job)/results HTTP/1.0\r\nAuthorization: Bearer \(TestServer.token)\r\n\r\n")
            #expect(results.status.hasPrefix("HTTP/1.0 200"), "\(results.status)")
            #expect(results.headers["transfer-encoding"] == nil, "\(results.headers)")
            #expect(results.body.hasPrefix("\"Id\",\"Name\"") && results.body.contains("Streamed"), "\(results.body)")
        }
    }

    @Test func compressedBodiesWorkBothWays() async throws {
        try await withServer { server in
            func compressed(_ value: JSONValue, _ algorithm: CompressionAlgorithm) throws -> Data {
                var buffer = ByteBuffer(bytes: value.jsonBytes)
                var output = try buffer.compress(with: algorithm)
                return Data(output.readBytes(length: output.readableBytes) ?? [])
            }
            // HTTP's deflate is the zlib format (RFC 9110): its bodies start with zlib's 0x78 header.
            #expect(try compressed(["Name": "x"], .zlib()).first == 0x78)
            for (coding, algorithm) in [("gzip", CompressionAlgorithm.gzip()), ("deflate", .zlib())] {
                let reply = try await server.send(
                    "POST", "sobjects/Account", rawBody: try compressed(["Name": .string("Zipped \(coding)")], algorithm),
                    headers: ["Content-Encoding": coding, "Content-Type": "application/json"])
                #expect(reply.status == 201, "\(coding): \(String(decoding: reply.body, as: UTF8.self))")
            }
            #expect(try await server.query("SELECT COUNT() FROM Account WHERE Name LIKE 'Zipped%'").json?["totalSize"] == 2)
            let corrupt = try await server.send(
                "POST", "sobjects/Account", rawBody: Data("not gzip at all".utf8), headers: ["Content-Encoding": "gzip"])
            #expect(corrupt.status == 400)
            let unknown = try await server.send(
                "POST", "sobjects/Account", rawBody: Data("{}".utf8), headers: ["Content-Encoding": "br"])
            #expect(unknown.status == 415)
            // A small body that inflates past the body limit (64 MiB) is refused, not inflated.
            var zeros = ByteBuffer(repeating: 0x20, count: 70 << 20)
            var bomb = try zeros.compress(with: .gzip())
            let inflated = try await server.send(
                "POST", "sobjects/Account", rawBody: Data(bomb.readBytes(length: bomb.readableBytes) ?? []),
                headers: ["Content-Encoding": "gzip"])
            #expect(inflated.status == 413, "\(inflated.status) \(String(decoding: inflated.body, as: UTF8.self))")
            // Answers are gzip-compressed for a client that accepts it.
            _ = try await server.server.localForce.insert((0..<50).map { ["Name": .string("Account \($0)")] }, of: "Account")
            let port = try #require(server.server.baseURL.port)
            let handle = try RawSocket.connected(port: port)
            defer { close(handle) }
            let request =
                "GET /services/data/v66.0/query?q=SELECT+Id,Name+FROM+Account HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Authorization: Bearer \(TestServer.token)\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n"
            try RawSocket.write(handle, Array(request.utf8))
            let received = await RawSocket.receiveBytes(handle)
            let separator: [UInt8] = [13, 10, 13, 10]
            let end = try #require((0..<received.count - 3).first { Array(received[$0..<$0 + 4]) == separator })
            let head = Self.parse(String(decoding: received[..<end], as: UTF8.self) + "\r\n\r\n")
            #expect(head.headers["content-encoding"] == "gzip", "\(head.headers)")
            var body = ByteBuffer(bytes: received[(end + 4)...])
            var plain = try body.decompress(with: .gzip())
            let page = try JSONValue(parsing: plain.readBytes(length: plain.readableBytes) ?? [])
            #expect(page["totalSize"] == 52)
        }
    }

    @Test func queriesInsideCompositesPageAsQueryDoes() async throws {
        try await withServer { server in
            _ = try await server.server.localForce.insert((0..<2_500).map { ["Name": .string("P\($0)")] }, of: "Account")
            let soql = "SELECT Id FROM Account ORDER BY Name"
            let expected = try await server.allRecords(soql).compactMap { $0["Id"]?.stringValue }
            #expect(expected.count == 2_500)
            let url = "/services/data/v66.0/query?q=" + (soql.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
            let composite = try await server.send(
                "POST", "composite", json: ["compositeRequest": [["method": "GET", "url": .string(url), "referenceId": "q"]]])
            let batch = try await server.send("POST", "composite/batch", json: ["batchRequests": [["method": "GET", "url": .string(url)]]])
            let firstPages = [
                composite.json?["compositeResponse"]?.arrayValue?.first?["body"], batch.json?["results"]?.arrayValue?.first?["result"],
            ]
            for first in firstPages {
                let page = try #require(first)
                #expect(page["done"] == false && page["totalSize"] == 2_500, "\(page["done"].map { "\($0)" } ?? "-")")
                var ids = page["records"]?.arrayValue?.compactMap { $0["Id"]?.stringValue } ?? []
                var next = page["nextRecordsUrl"]?.stringValue
                #expect(next != nil)
                while let url = next {
                    let more = try await server.send("GET", url)
                    ids += more.json?["records"]?.arrayValue?.compactMap { $0["Id"]?.stringValue } ?? []
                    next = more.json?["nextRecordsUrl"]?.stringValue
                    if next == nil { #expect(more.json?["done"] == true) }
                }
                #expect(ids == expected)
            }
            // The batch size a subrequest asks for.
            let sized = try await server.send(
                "POST", "composite",
                json: [
                    "compositeRequest": [
                        [
                            "method": "GET", "url": .string(url), "referenceId": "q",
                            "httpHeaders": ["Sforce-Query-Options": "batchSize=500"],
                        ]
                    ]
                ])
            let sizedPage = sized.json?["compositeResponse"]?.arrayValue?.first?["body"]
            #expect(sizedPage?["records"]?.arrayValue?.count == 500)
            #expect(sizedPage?["nextRecordsUrl"]?.stringValue?.hasSuffix("-500") == true)
        }
    }
}
