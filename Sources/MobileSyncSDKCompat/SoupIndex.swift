import Foundation
public import SmartStore

/// The SDK's `SoupIndex` (`SFSoupIndex`): one index of a soup, with its type as the SDK's string
/// constants spell it (`kSoupIndexTypeString`, `kSoupIndexTypeJSON1`…). SmartStore's own is
/// `IndexSpec`; ``indexSpec`` converts.
///
/// <!-- snippet: Snippets/MobileSyncSDKCompatReference.swift#soupIndex -->
/// ```swift
/// let indices = [SoupIndex(path: "Id", indexType: kSoupIndexTypeString, columnName: nil)!,
///                SoupIndex(path: kSyncTargetLocal, indexType: kSoupIndexTypeString, columnName: nil)!]
/// try store.registerSoup(withName: "accounts", withIndices: indices)
/// ```
public final class SoupIndex: CustomStringConvertible {
    /// The indexed path (`Account.Name`).
    public var path: String
    /// The index type: one of the `kSoupIndexType…` constants.
    public var indexType: String
    /// The column the index lives in once its soup is registered; empty before.
    public private(set) var columnName: String
    /// The SQL type of the index's column (`TEXT`, `INTEGER`, `REAL`), nil for a JSON1 index.
    public var columnType: String? {
        switch SoupIndexType(rawValue: indexType) {
        case .string, .fullText: "TEXT"
        case .integer: "INTEGER"
        case .floating: "REAL"
        case .json1, nil: nil
        }
    }

    /// An index, or nil when `type` is no index type (the SDK's initialiser fails then too).
    public init?(path: String, indexType type: String, columnName: String?) {
        guard SoupIndexType(rawValue: type) != nil else { return nil }
        self.path = path
        self.indexType = type
        self.columnName = columnName ?? ""
    }

    /// An index from its dictionary (`path`, `type`, optionally `columnName`); an unknown or
    /// missing type reads as a string index, a missing path as an empty one.
    public init(dictionary: [AnyHashable: Any]) {
        path = dictionary[kSoupIndexPath] as? String ?? ""
        let type = dictionary[kSoupIndexType] as? String ?? ""
        indexType = SoupIndexType(rawValue: type) == nil ? kSoupIndexTypeString : type
        columnName = dictionary["columnName"] as? String ?? ""
    }

    /// SmartStore's `IndexSpec` for this index.
    public var indexSpec: IndexSpec {
        IndexSpec(path: path, type: SoupIndexType(rawValue: indexType) ?? .string, columnName: columnName.isEmpty ? nil : columnName)
    }

    /// The index of a registered soup.
    convenience init(_ spec: IndexSpec) {
        self.init(dictionary: [kSoupIndexPath: spec.path, kSoupIndexType: spec.type.rawValue, "columnName": spec.columnName ?? ""])
    }

    /// The index as a dictionary, without its column name.
    public func asDictionary() -> [AnyHashable: Any] { asDictionary(false) }

    /// The index as a dictionary, with its column name when asked.
    public func asDictionary(_ withColumnName: Bool) -> [AnyHashable: Any] {
        var dictionary: [AnyHashable: Any] = [kSoupIndexPath: path, kSoupIndexType: indexType]
        if withColumnName { dictionary["columnName"] = columnName }
        return dictionary
    }

    /// Indexes from their dictionaries.
    public static func asArraySoupIndexes(_ arrayOfDictionaries: [[AnyHashable: Any]]) -> [SoupIndex] {
        arrayOfDictionaries.map(SoupIndex.init(dictionary:))
    }

    /// Indexes as dictionaries.
    public static func asArrayOfDictionaries(_ arrayOfSoupIndexes: [SoupIndex], withColumnName: Bool) -> [[AnyHashable: Any]] {
        arrayOfSoupIndexes.map { $0.asDictionary(withColumnName) }
    }

    /// Whether any of the indexes is a full-text one.
    public static func hasFts(_ soupIndexes: [SoupIndex]) -> Bool { soupIndexes.contains { $0.indexType == kSoupIndexTypeFullText } }

    /// Whether any of the indexes is a JSON1 one.
    public static func hasJSON1(_ soupIndexes: [SoupIndex]) -> Bool { soupIndexes.contains { $0.indexType == kSoupIndexTypeJSON1 } }

    /// `path--type`, as the SDK's `getPathType()`.
    public func getPathType() -> String { path + "--" + indexType }

    /// The index as the SDK describes it.
    public var description: String { "SoupIndex(path: \(path), type: \(indexType), columnName: \(columnName))" }
}
