import FastJSON
import Foundation
public import SmartStore

#if canImport(Combine)
    public import Combine
#else
    public import OpenCombine
#endif

/// The Mobile SDK's SmartStore names from its Swift extension, as thin aliases of the store's own
/// calls, so that an SDK app's code compiles unchanged (see <doc:PortingFromTheMobileSDK>).
/// Their results are Foundation values (`[Any]`), as the SDK's are: strings,
/// `NSNumber`s (so `as? Int`, `as? Double` and `as? Bool` succeed where they do on iOS),
/// `[String: Any]` and `[Any]`, with `NSNull` for a null inside an object or an array. A null
/// *cell* of a row is `Optional<Any>.none`, so that a row casts to `[String?]` on every platform
/// (`NSNull` does not on Linux).
extension SmartStore {
    /// The store name the SDK uses when none is given (`StoreDirectory.defaultStoreName`).
    public static var defaultStoreName: String { StoreDirectory.defaultStoreName }

    /// Registers a soup with a JSON1 index on each path, as the SDK's Swift extension does
    /// (`registerSoup(withName:withIndexPaths:)`): `true`, or the error. See
    /// `registerSoup(_:indexSpecs:)` for other index types.
    @discardableResult
    public func registerSoup(withName name: String, withIndexPaths indexPaths: [String]) -> Result<Bool, SmartStoreError> {
        sdkResult {
            try registerSoup(name, indexSpecs: indexPaths.map { IndexSpec($0, .json1) })
            return true
        }
    }

    /// Runs a Smart SQL query and returns all its rows as Foundation values, or the error (the
    /// SDK's `query(_:)`). Rows are read a page at a time.
    ///
    /// <!-- snippet: Snippets/MobileSyncSDKCompatReference.swift#sdkQuery -->
    /// ```swift
    /// if case .success(let rows) = store.query("select {Account:Name}, {Account:Industry} from {Account}") {
    ///     let names = rows.map { ($0 as? [String?])?.first ?? nil }
    /// }
    /// ```
    public func query(_ smartSql: String) -> Result<[Any], SmartStoreError> {
        sdkResult {
            let pageSize = 1_000
            var rows: [Any] = []
            var page = 0
            while true {
                let batch = try query(.smart(smartSql, pageSize: pageSize), pageIndex: page)
                rows += batch.map(Self.sdkValue)
                if batch.count < pageSize { return rows }
                page += 1
            }
        }
    }

    /// Runs a Smart SQL query at once, on the caller's thread, and publishes all its rows as
    /// `query(_:)` returns them (the SDK's `publisher(for:)`, which runs when made too). Combine's `Future` on Apple
    /// platforms, OpenCombine's elsewhere (SmartStore re-exports it with its `RunLoop` and
    /// `DispatchQueue` schedulers there, so `.receive(on: RunLoop.main)` compiles everywhere).
    /// For rows as `JSONValue`s, pass a page size: `publisher(for:pageSize:)`.
    ///
    /// <!-- snippet: Snippets/MobileSyncSDKCompatReference.swift#sdkPublisher -->
    /// ```swift
    /// cancellable = store.publisher(for: "select {Account:Name} from {Account}")
    ///     .receive(on: RunLoop.main)
    ///     .sink(receiveCompletion: { _ in }, receiveValue: { rows in show(rows as? [[String?]] ?? []) })
    /// ```
    public func publisher(for smartSql: String) -> Future<[Any], SmartStoreError> {
        Future { promise in
            promise(self.query(smartSql))
        }
    }

    /// A row as the SDK hands it out (see the extension's note): a Smart SQL row is an array of
    /// cells, a null cell `Optional<Any>.none`; an entry is a dictionary.
    static func sdkValue(_ row: JSONValue) -> Any {
        guard case .array(let cells) = row else { return FoundationBridge.foundation(row) }
        return cells.map { cell -> Any in
            if case .null = cell { return Optional<Any>.none as Any }
            return FoundationBridge.foundation(cell)
        }
    }

    /// Runs `body`, turning what it throws into the SDK's `Result` form.
    private func sdkResult<T>(_ body: () throws -> T) -> Result<T, SmartStoreError> {
        do {
            return .success(try body())
        } catch let error as SmartStoreError {
            return .failure(error)
        } catch {
            return .failure(.database("\(error)"))
        }
    }
}
