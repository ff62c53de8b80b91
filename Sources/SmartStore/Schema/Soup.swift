/// A registered soup as the store sees it: its table, its index specs and their columns.
struct Soup: Sendable {
    /// The soup's name, as registered.
    let name: String
    /// The table holding the soup's entries, `TABLE_<id>`.
    let tableName: String
    /// The index specs in registration order, each with its ``IndexSpec/columnName``.
    let indexSpecs: [IndexSpec]
    /// The shadow its writes keep (``SmartStore/captureShadow(_:inSoup:whenFlagSet:)``), if any.
    var capture: ShadowCapture? = nil

    /// The FTS5 table, when the soup has at least one full-text index.
    var ftsTableName: String? { hasFullText ? tableName + "_fts" : nil }

    var hasFullText: Bool { indexSpecs.contains { $0.type == .fullText } }

    /// Index specs that own a real column (every type but json1).
    var columnSpecs: [IndexSpec] { indexSpecs.filter { $0.type.hasColumn } }

    /// Index specs whose column is part of the FTS table.
    var fullTextSpecs: [IndexSpec] { indexSpecs.filter { $0.type == .fullText } }

    /// The index spec registered for `path`, if any.
    func indexSpec(forPath path: String) -> IndexSpec? {
        indexSpecs.first { $0.path == path }
    }

    /// The SQL expression that reads `path`: its column when indexed into one, else
    /// `json_extract(soup, '$.path')` (json1 index or not indexed at all).
    func columnExpression(forPath path: String) -> String {
        if let spec = indexSpec(forPath: path), let column = spec.columnName { return column }
        return Soup.jsonExtract(path)
    }

    static func jsonExtract(_ path: String, column: String = "soup") -> String {
        "json_extract(\(column), '$.\(path)')"
    }

    /// Column name for the spec at `position`: `TABLE_1_3`. json1 specs consume a position too.
    static func columnName(table: String, position: Int, type: SoupIndexType, path: String) -> String {
        type == .json1 ? jsonExtract(path) : "\(table)_\(position)"
    }
}
