/// How an index spec stores and indexes the value at its path.
///
/// The raw values are the SDK's type names, as they appear in `userstore.json` and in the
/// `columnType` column of `soup_index_map`.
public enum SoupIndexType: String, Sendable, Codable, CaseIterable {
    /// Projected into a `TEXT` column with a B-tree index.
    case string
    /// Projected into an `INTEGER` column with a B-tree index.
    case integer
    /// Projected into a `REAL` column with a B-tree index.
    case floating
    /// Projected into a `TEXT` column and into the soup's FTS5 table.
    case fullText = "full_text"
    /// No column: a functional index on `json_extract(soup, '$.path')`.
    case json1

    /// The SQL column type of the projected column, `nil` for ``json1``.
    var columnType: String? {
        switch self {
        case .string, .fullText: "TEXT"
        case .integer: "INTEGER"
        case .floating: "REAL"
        case .json1: nil
        }
    }

    /// Whether the value is projected into a column of the soup table.
    var hasColumn: Bool { self != .json1 }
}
