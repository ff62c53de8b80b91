import GRDB

extension SmartStore {
    /// Translates Smart SQL to the SQL the store runs (see ``QuerySpec`` and the SDK's goldens).
    ///
    /// - Throws: ``SmartStoreError/invalidSmartSQL(_:)`` for non-SELECT statements, malformed
    ///   references and unknown soups.
    public func convertSmartSql(_ smartSql: String) throws -> String {
        try read { db in try translate(db, smartSql) }
    }

    func translate(_ db: Database, _ smartSql: String) throws -> String {
        try translation(db, smartSql).sql
    }

    func translation(_ db: Database, _ smartSql: String) throws -> SoupCache.Translation {
        if let cached = cache.translation(of: smartSql) { return cached }
        let sql = try SmartSQLTranslator(soupNamed: { name in try self.soup(db, named: name) }).translate(smartSql)
        let translation = SoupCache.Translation(sql)
        cache.storeTranslation(translation, of: smartSql)
        return translation
    }

    /// Runs a query and returns one page of results.
    ///
    /// Entries come back as JSON objects, except for smart queries and specs with
    /// `selectPaths`, whose rows are JSON arrays (a `soup` column is parsed into an object).
    ///
    /// - Parameters:
    ///   - spec: the query and its page size.
    ///   - pageIndex: zero-based page; the page holds `spec.pageSize` results.
    ///   - arguments: values bound to the `?` of a smart query (only smart queries accept them).
    public func query(_ spec: QuerySpec, pageIndex: Int = 0, arguments: [JSONValue]? = nil) throws -> [JSONValue] {
        try readSingleStatement(querying(spec, bound: try Self.pagedArguments(for: spec, arguments, pageIndex: pageIndex)))
    }

    /// Runs a query without blocking the caller's thread; see ``query(_:pageIndex:arguments:)``.
    public func query(_ spec: QuerySpec, pageIndex: Int = 0, arguments: [JSONValue]? = nil) async throws -> [JSONValue] {
        try await readSingleStatement(querying(spec, bound: try Self.pagedArguments(for: spec, arguments, pageIndex: pageIndex)))
    }

    func querying(_ spec: QuerySpec, bound: StatementArguments) -> @Sendable (Database) throws -> [JSONValue] {
        { db in
            try self.withPagedStatement(db, spec, bound) { statement in try QueryResults.values(statement, asRows: spec.returnsRows) }
        }
    }

    /// Runs a query and returns one page as JSON text (a JSON array), without building
    /// `JSONValue`s: entries are copied from the store as they are. The SDK's `queryAsString`.
    public func queryJSON(_ spec: QuerySpec, pageIndex: Int = 0, arguments: [JSONValue]? = nil) throws -> [UInt8] {
        try readSingleStatement(queryingJSON(spec, bound: try Self.pagedArguments(for: spec, arguments, pageIndex: pageIndex)))
    }

    /// Runs a query for JSON text without blocking the caller's thread; see ``queryJSON(_:pageIndex:arguments:)``.
    public func queryJSON(_ spec: QuerySpec, pageIndex: Int = 0, arguments: [JSONValue]? = nil) async throws -> [UInt8] {
        try await readSingleStatement(queryingJSON(spec, bound: try Self.pagedArguments(for: spec, arguments, pageIndex: pageIndex)))
    }

    private func queryingJSON(_ spec: QuerySpec, bound: StatementArguments) -> @Sendable (Database) throws -> [UInt8] {
        { db in
            try self.withPagedStatement(db, spec, bound) { statement in try QueryResults.json(statement, asRows: spec.returnsRows) }
        }
    }

    /// Prepares (and caches) the spec's page statement, `SELECT * FROM (…) LIMIT ?,?`, and maps SQLite errors.
    private func withPagedStatement<T>(
        _ db: Database, _ spec: QuerySpec, _ arguments: StatementArguments,
        _ body: (Statement) throws -> T
    ) throws -> T {
        let translation = try translation(db, spec.smartSql)
        let sql = translation.sql
        do {
            let statement = try db.cachedStatement(sql: translation.pagedSQL)
            // Generated queries have exactly their arguments and the page's two; only a smart
            // query's arguments, which come from the caller, need counting against its SQL.
            if spec.kind == .smart {
                try statement.setArguments(arguments)
            } else {
                statement.setUncheckedArguments(arguments)
            }
            return try body(statement)
        } catch let error as DatabaseError {
            throw queryFailure(error, sql: sql)
        }
    }

    static func pagedArguments(for spec: QuerySpec, _ arguments: [JSONValue]?, pageIndex: Int) throws -> StatementArguments {
        let (offset, overflow) = max(0, pageIndex).multipliedReportingOverflow(by: spec.pageSize)
        guard !overflow else {
            throw SmartStoreError.invalidQuerySpec("Page \(pageIndex) of \(spec.pageSize) results is beyond the largest offset")
        }
        return StatementArguments(databaseValues: try values(for: spec, arguments) + [offset.databaseValue, spec.pageSize.databaseValue])
    }

    /// The names of the columns a query's rows have, for showing them: an alias as written, an
    /// indexed path by its path (`{accounts:Name}` → `Name`, where SQLite says `TABLE_1_1`), a
    /// json1 or unindexed path likewise, `soup` for whole entries, a soup table's own column by
    /// its path (`{accounts:_soupEntryId}` → `_soupEntryId`, where SQLite says `id`); another expression as it was
    /// written in the Smart SQL (`{accounts:FirstName} || ' ' || {accounts:LastName}`, where
    /// SQLite names its translation).
    ///
    /// - Throws: ``SmartStoreError/invalidSmartSQL(_:)`` and ``SmartStoreError/queryFailed(sql:message:)``
    ///   as `query(_:pageIndex:arguments:)` does.
    public func columnNames(of spec: QuerySpec) throws -> [String] {
        try read { db in
            let translation = try translation(db, spec.smartSql)
            let names: [String]
            do {
                // A statement of its own: a cached one keeps the columns it had when it was made.
                names = try db.makeStatement(sql: translation.pagedSQL).columnNames
            } catch let error as DatabaseError {
                throw queryFailure(error, sql: translation.sql)
            }
            // The translation again, recording where each reference went.
            var map = SourceMap()
            let mapped = try SmartSQLTranslator(soupNamed: { name in try self.soup(db, named: name) }).translate(spec.smartSql, map: &map)
            var paths: [String: String] = [:]
            for name in try StoreSchema.soupNames(db) {
                for index in try soup(db, named: name)?.indexSpecs ?? [] {
                    if let column = index.columnName { paths[column] = index.path }
                }
            }
            return names.map { name in
                // SQLite names a repeated column `name:N`; the path keeps the suffix.
                var base = Substring(name)
                var suffix = ""
                if let colon = name.lastIndex(of: ":"), name[name.index(after: colon)...].allSatisfy(\.isNumber), colon != name.startIndex {
                    base = name[..<colon]
                    suffix = String(name[colon...])
                }
                if let path = paths[String(base)] ?? Self.extractedPath(String(base)) ?? Self.ownColumnPath(String(base), spec.smartSql) {
                    return path + suffix
                }
                return Self.written(String(base), smartSql: spec.smartSql, translation: mapped, map: map).map { $0 + suffix } ?? name
            }
        }
    }

    /// The Smart SQL that an expression column `name` was translated from: SQLite names such a
    /// column by its text in `translation`, found there and mapped back through `map`. `nil` for
    /// a plain name (a column, `soup`) or text not found.
    static func written(_ name: String, smartSql: String, translation: String, map: SourceMap) -> String? {
        let wanted = Array(name.utf8)
        guard wanted.contains(where: { !SmartSQLTranslator.isWordByte($0) }) else { return nil }
        let sql = Array(translation.utf8)
        let source = Array(smartSql.utf8)
        guard wanted.count <= sql.count,
            let start = (0...(sql.count - wanted.count)).first(where: { sql[$0..<($0 + wanted.count)].elementsEqual(wanted) })
        else { return nil }
        let input = map.input(of: start..<(start + wanted.count))
        guard input.lowerBound >= 0, input.upperBound <= source.count else { return nil }
        return String(decoding: source[input], as: UTF8.self)
    }

    /// The path of a soup table's own column (`{accounts:_soupEntryId}` → `_soupEntryId`, where
    /// SQLite says `id`), unless the query writes that name itself anywhere (an alias, with or
    /// without `AS`, names a column so).
    private static func ownColumnPath(_ name: String, _ smartSql: String) -> String? {
        let paths = ["id": "_soupEntryId", "created": "_soupCreatedDate", "lastModified": "_soupLastModifiedDate"]
        guard let path = paths[name], smartSql.contains(":\(path)}") else { return nil }
        let words = smartSql.lowercased().split { !SmartSQLTranslator.isWordByte($0.asciiValue ?? 0) }
        return words.contains(Substring(name.lowercased())) ? nil : path
    }

    /// `json_extract(soup, '$.a.b')` (also with `alias.soup`) → `a.b`.
    private static func extractedPath(_ expression: String) -> String? {
        guard expression.hasPrefix("json_extract("), expression.hasSuffix("')"),
            let start = expression.range(of: "soup, '$.")
        else { return nil }
        return String(expression[start.upperBound..<expression.index(expression.endIndex, offsetBy: -2)])
    }

    /// The number of results of a query over all pages.
    public func count(_ spec: QuerySpec, arguments: [JSONValue]? = nil) throws -> Int {
        try readSingleStatement(counting(spec, bound: try Self.arguments(for: spec, arguments)))
    }

    /// Counts without blocking the caller's thread; see ``count(_:arguments:)``.
    public func count(_ spec: QuerySpec, arguments: [JSONValue]? = nil) async throws -> Int {
        try await readSingleStatement(counting(spec, bound: try Self.arguments(for: spec, arguments)))
    }

    func counting(_ spec: QuerySpec, bound: StatementArguments) -> @Sendable (Database) throws -> Int {
        { db in
            let sql = try self.translate(db, spec.countSmartSql)
            do {
                return try Int.fetchOne(db, sql: sql, arguments: bound) ?? 0
            } catch let error as DatabaseError {
                throw self.queryFailure(error, sql: sql)
            }
        }
    }

    static func arguments(for spec: QuerySpec, _ arguments: [JSONValue]?) throws -> StatementArguments {
        StatementArguments(databaseValues: try values(for: spec, arguments))
    }

    private static func values(for spec: QuerySpec, _ arguments: [JSONValue]?) throws -> [DatabaseValue] {
        if let arguments {
            guard spec.kind == .smart else {
                throw SmartStoreError.invalidQuerySpec("whereArgs can only be provided for smart queries")
            }
            return arguments.map(ProjectedValue.databaseValue)
        }
        return spec.arguments.map(ProjectedValue.databaseValue)
    }
}
