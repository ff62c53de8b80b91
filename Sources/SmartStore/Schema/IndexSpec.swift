/// One index of a soup: a JSON path and how it is indexed.
///
/// <!-- snippet: Snippets/SmartStoreReference.swift#indexSpec -->
/// ```swift
/// try store.registerSoup("accounts", indexSpecs: [
///     IndexSpec("Id", .string),
///     IndexSpec("Name", .fullText),
///     IndexSpec("__local__", .string),
/// ])
/// ```
public struct IndexSpec: Sendable, Hashable, Codable {
    /// Dot-separated path into the record, e.g. `Account.Name`.
    public var path: String
    /// How the value is stored and indexed.
    public var type: SoupIndexType
    /// The SQL expression the path resolves to once registered (`TABLE_1_0`, or
    /// `json_extract(soup, '$.path')` for ``SoupIndexType/json1``); `nil` before registration.
    public var columnName: String?

    /// Creates an index spec for `path`.
    public init(_ path: String, _ type: SoupIndexType) {
        self.path = path
        self.type = type
        self.columnName = nil
    }

    /// Creates an index spec, optionally with its resolved column name.
    public init(path: String, type: SoupIndexType, columnName: String? = nil) {
        self.path = path
        self.type = type
        self.columnName = columnName
    }

    enum CodingKeys: String, CodingKey {
        case path, type, columnName
    }
}
