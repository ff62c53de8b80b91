/// A query on a soup, in the SDK's shapes: all, exact, range, like, match (full text) or smart.
///
/// Every kind except ``Kind/smart`` compiles to Smart SQL with the SDK's exact text, so the
/// SDK's `QuerySpecTest` goldens hold:
///
/// <!-- snippet: Snippets/SmartStoreReference.swift#querySpec -->
/// ```swift
/// let spec = QuerySpec.range(soup: "employees", path: "lastName", begin: "Bond", end: "Smith",
///                            orderPath: "lastName", pageSize: 10)
/// let sql = spec.smartSql
/// // SELECT {employees:_soup} FROM {employees} WHERE {employees:lastName} >= ? AND {employees:lastName} <= ? ORDER BY {employees:lastName} ASC
/// ```
public struct QuerySpec: Sendable, Hashable {
    /// The kind of query.
    public enum Kind: String, Sendable, Codable {
        case exact, range, like, match, smart
    }

    /// Sort direction.
    public enum Order: String, Sendable, Codable {
        case ascending, descending

        var sql: String { self == .ascending ? "ASC" : "DESC" }
    }

    /// Which query this is: all, exact, range, like, match or smart.
    public let kind: Kind
    /// The soup queried (`nil` for smart queries, which name soups in their SQL).
    public let soupName: String?
    /// Paths returned as array rows instead of whole entries.
    public let selectPaths: [String]?
    /// The path filtered on (the full-text path for match; `nil` there means all full-text columns).
    public let path: String?
    /// Exact and match queries: the value (match: the full-text expression) compared with `path`.
    public let matchKey: String?
    /// Range queries: the lower bound, inclusive; nil for none.
    public let beginKey: JSONValue?
    /// Range queries: the upper bound, inclusive; nil for none.
    public let endKey: JSONValue?
    /// Like queries: the SQL `LIKE` pattern.
    public let likeKey: String?
    /// The path results are sorted by; nil: entry order.
    public let orderPath: String?
    /// Ascending or descending.
    public let order: Order
    /// Entries per page (at least 1).
    public let pageSize: Int

    /// The query as Smart SQL.
    public let smartSql: String
    /// Smart SQL counting all matches.
    public var countSmartSql: String {
        guard let fromWhere else { return "SELECT count(*) FROM (\(smartSql))" }
        return "SELECT count(*) " + fromWhere
    }
    /// Smart SQL selecting the entry ids of the matches, in query order.
    public var idsSmartSql: String {
        guard let fromWhere else { return "SELECT id FROM (\(smartSql))" }
        return "SELECT id " + fromWhere + orderClause
    }
    /// The FROM and WHERE clauses of a generated query (`nil` for a smart query), and its
    /// ORDER BY clause: kept so that the count and ids queries are only built when used.
    private let fromWhere: String?
    private let orderClause: String
    /// The values bound to the `?` of the generated Smart SQL.
    public let arguments: [JSONValue]

    private init(
        kind: Kind, soupName: String?, selectPaths: [String]?, path: String?, matchKey: String? = nil,
        beginKey: JSONValue? = nil, endKey: JSONValue? = nil, likeKey: String? = nil,
        orderPath: String?, order: Order, pageSize: Int, smartSql: String? = nil
    ) {
        self.kind = kind
        self.soupName = soupName
        self.selectPaths = selectPaths
        self.path = path
        self.matchKey = matchKey
        self.beginKey = beginKey
        self.endKey = endKey
        self.likeKey = likeKey
        self.orderPath = orderPath
        self.order = order
        self.pageSize = max(1, pageSize)
        if let smartSql {
            self.smartSql = smartSql
            self.fromWhere = nil
            self.orderClause = ""
            self.arguments = []
            return
        }
        let soup = soupName ?? ""
        let select =
            "SELECT "
            + (selectPaths.map { paths in paths.map { "{\(soup):\($0)}" }.joined(separator: ", ") }
                ?? "{\(soup):_soup}") + " "
        let from = "FROM {\(soup)} "
        let (whereClause, arguments) = Self.whereClause(
            kind, soup: soup, path: path, matchKey: matchKey, beginKey: beginKey, endKey: endKey, likeKey: likeKey)
        let orderClause = orderPath.map { "ORDER BY {\(soup):\($0)} \(order.sql) " } ?? ""
        self.smartSql = select + from + whereClause + orderClause
        self.fromWhere = from + whereClause
        self.orderClause = orderClause
        self.arguments = arguments
    }

    /// The WHERE clause of a generated query of `kind`, and the values it binds.
    private static func whereClause(
        _ kind: Kind, soup: String, path: String?, matchKey: String?, beginKey: JSONValue?, endKey: JSONValue?, likeKey: String?
    ) -> (String, [JSONValue]) {
        var whereClause = ""
        var arguments: [JSONValue] = []
        let column = "{\(soup):\(path ?? "")}"
        switch kind {
        case .exact:
            whereClause = "WHERE \(column) = ? "
            arguments = [beginKey ?? .null]
        case .like:
            whereClause = "WHERE \(column) LIKE ? "
            arguments = [likeKey.map(JSONValue.string) ?? .null]
        case .range:
            switch (beginKey, endKey) {
            case (let begin?, let end?):
                whereClause = "WHERE \(column) >= ? AND \(column) <= ? "
                arguments = [begin, end]
            case (let begin?, nil):
                whereClause = "WHERE \(column) >= ? "
                arguments = [begin]
            case (nil, let end?):
                whereClause = "WHERE \(column) <= ? "
                arguments = [end]
            case (nil, nil):
                break
            }
        case .match:
            let qualified = QuerySpec.qualifyMatchKey(path.map { "{\(soup):\($0)}" }, matchKey ?? "")
            // The key is inlined (FTS5 wants a literal); quotes are doubled so it cannot end the literal.
            let escaped = String(qualified.flatMap { $0 == "'" ? ["'", "'"] : [$0] })
            whereClause = "WHERE {\(soup):_soupEntryId} IN (SELECT rowid FROM {\(soup)}_fts WHERE {\(soup)}_fts MATCH '\(escaped)') "
        case .smart:
            break
        }
        return (whereClause, arguments)
    }

    /// All entries of a soup, optionally ordered. (The SDK's `buildAllQuerySpec`.)
    public static func all(
        soup: String, selectPaths: [String]? = nil, orderPath: String? = nil,
        order: Order = .ascending, pageSize: Int
    ) -> QuerySpec {
        QuerySpec(
            kind: .range, soupName: soup, selectPaths: selectPaths, path: nil,
            orderPath: orderPath, order: order, pageSize: pageSize)
    }

    /// Entries whose `path` equals `key`.
    public static func exact(
        soup: String, selectPaths: [String]? = nil, path: String, key: JSONValue,
        orderPath: String? = nil, order: Order = .ascending, pageSize: Int
    ) -> QuerySpec {
        QuerySpec(
            kind: .exact, soupName: soup, selectPaths: selectPaths, path: path, beginKey: key,
            orderPath: orderPath, order: order, pageSize: pageSize)
    }

    /// Entries whose `path` lies in `begin...end` (inclusive; either bound may be omitted).
    public static func range(
        soup: String, selectPaths: [String]? = nil, path: String, begin: JSONValue?, end: JSONValue?,
        orderPath: String? = nil, order: Order = .ascending, pageSize: Int
    ) -> QuerySpec {
        QuerySpec(
            kind: .range, soupName: soup, selectPaths: selectPaths, path: path, beginKey: begin, endKey: end,
            orderPath: orderPath, order: order, pageSize: pageSize)
    }

    /// Entries whose `path` is `LIKE` the pattern (the caller supplies `%` and `_`).
    public static func like(
        soup: String, selectPaths: [String]? = nil, path: String, pattern: String,
        orderPath: String? = nil, order: Order = .ascending, pageSize: Int
    ) -> QuerySpec {
        QuerySpec(
            kind: .like, soupName: soup, selectPaths: selectPaths, path: path, likeKey: pattern,
            orderPath: orderPath, order: order, pageSize: pageSize)
    }

    /// Full-text match on one full-text path, or on all of them when `path` is `nil`.
    ///
    /// `key` is an FTS5 query (`abc AND def`, `(a OR b) NOT c`, `ab*`), the SDK's `matchKey`;
    /// terms are qualified with the path (see ``qualifyMatchKey(_:_:)``).
    public static func match(
        soup: String, selectPaths: [String]? = nil, path: String?, key: String,
        orderPath: String? = nil, order: Order = .ascending, pageSize: Int
    ) -> QuerySpec {
        QuerySpec(
            kind: .match, soupName: soup, selectPaths: selectPaths, path: path, matchKey: key,
            orderPath: orderPath, order: order, pageSize: pageSize)
    }

    /// A Smart SQL query.
    public static func smart(_ smartSql: String, pageSize: Int) -> QuerySpec {
        QuerySpec(
            kind: .smart, soupName: nil, selectPaths: nil, path: nil, orderPath: nil, order: .ascending,
            pageSize: pageSize, smartSql: smartSql)
    }

    /// Whether rows come back as arrays (smart queries and `selectPaths`) rather than entries.
    var returnsRows: Bool { kind == .smart || selectPaths != nil }

    /// Prefixes each term of an FTS5 match expression with a column, as FTS5 needs `column:term`.
    ///
    /// Terms already qualified (`{soup:path}:term`) and the operators `AND`, `OR`, `NOT` are kept:
    /// `qualifyMatchKey("{soup:path}", "(abc AND def) OR ghi")` is
    /// `({soup:path}:abc AND {soup:path}:def) OR {soup:path}:ghi`.
    public static func qualifyMatchKey(_ qualifier: String?, _ matchKey: String) -> String {
        guard let qualifier, !qualifier.isEmpty else { return matchKey }
        var result = ""
        var token = ""
        func flush() {
            guard !token.isEmpty else { return }
            if token == "AND" || token == "OR" || token == "NOT" || token.hasPrefix("{") {
                result += token
            } else {
                result += qualifier + ":" + token
            }
            token = ""
        }
        for character in matchKey {
            if character == "(" || character == ")" || character == " " {
                flush()
                result.append(character)
            } else {
                token.append(character)
            }
        }
        flush()
        return result
    }
}
