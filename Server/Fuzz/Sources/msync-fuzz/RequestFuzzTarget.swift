import Foundation
import LocalForce

/// LocalForce's request handler. An input is `METHOD PATH[?QUERY]`, header lines `Name: value`,
/// an empty line, then the body; the bearer token is sent unless the input sets Authorization.
struct RequestFuzzTarget: FuzzTarget {
    let org = FuzzOrgHolder()

    func run(_ data: [UInt8]) {
        let request = Self.request(from: data)
        let localForce = org.next()
        let response = blocking { await localForce.handle(request) }
        guard (100...599).contains(response.status) else { fatalError("status \(response.status)") }
    }

    static func request(from data: [UInt8]) -> APIRequest {
        var lines: [[UInt8]] = []
        var start = 0
        var bodyStart = data.count
        for index in data.indices where data[index] == 0x0A {
            let line = Array(data[start..<index])
            start = index + 1
            if line.isEmpty || line == [0x0D] {
                bodyStart = start
                break
            }
            lines.append(line)
        }
        if bodyStart == data.count, start < data.count { lines.append(Array(data[start...])) }
        let first = String(decoding: lines.first ?? [], as: UTF8.self).split(separator: " ", maxSplits: 1).map(String.init)
        let method = first.first ?? "GET"
        let target = first.count > 1 ? first[1] : "/"
        let pathAndQuery = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        var headers = ["Authorization": "Bearer \(FuzzOrg.token)"]
        for line in lines.dropFirst() {
            let text = String(decoding: line, as: UTF8.self)
            guard let colon = text.firstIndex(of: ":") else { continue }
            headers[String(text[..<colon])] = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return APIRequest(
            method: method, path: pathAndQuery.first ?? "/", query: pathAndQuery.count > 1 ? pathAndQuery[1] : nil,
            headers: headers, body: Array(data[bodyStart...]))
    }
}
