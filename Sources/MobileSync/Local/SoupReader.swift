import FastJSON
import SmartStore

/// What targets may read from the store they sync into (refresh pages through its ids).
struct SoupReader: Sendable {
    let store: SmartStore

    /// Up to `limit` values of `path` after `after` (ascending), from the soup.
    func ids(soup: String, path: String, after: String?, limit: Int) async throws -> [String] {
        let sql = "select {\(soup):\(path)} from {\(soup)} where {\(soup):\(path)} > ? order by {\(soup):\(path)}"
        return try await store.query(.smart(sql, pageSize: limit), arguments: [.string(after ?? "")])
            .compactMap { $0.arrayValue?.first?.stringValue }
    }

    func count(soup: String) async throws -> Int {
        try await store.count(.all(soup: soup, pageSize: 1))
    }
}
