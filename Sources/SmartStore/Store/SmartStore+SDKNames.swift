public import FastJSON

/// The Mobile SDK's SmartStore names from its Swift extension, as thin aliases of the store's own
/// calls, so that an SDK app's code compiles unchanged (see the MobileSync article "Porting an
/// SDK app").
extension SmartStore {
    /// The store name the SDK uses when none is given (``StoreDirectory/defaultStoreName``).
    public static var defaultStoreName: String { StoreDirectory.defaultStoreName }

    /// Registers a soup with a string index on each path (the SDK's
    /// `registerSoup(withName:withIndexPaths:)`); see ``registerSoup(_:indexSpecs:)``.
    public func registerSoup(withName name: String, withIndexPaths indexPaths: [String]) throws {
        try registerSoup(name, indexSpecs: indexPaths.map { IndexSpec($0, .string) })
    }

    /// Runs a Smart SQL query and returns all its rows, or the error (the SDK's `query(_:)`).
    /// Rows are read a page at a time.
    public func query(_ smartSql: String) -> Result<[JSONValue], SmartStoreError> {
        let pageSize = 1_000
        var rows: [JSONValue] = []
        var page = 0
        do {
            while true {
                let batch = try query(.smart(smartSql, pageSize: pageSize), pageIndex: page)
                rows += batch
                if batch.count < pageSize { return .success(rows) }
                page += 1
            }
        } catch let error as SmartStoreError {
            return .failure(error)
        } catch {
            return .failure(.database("\(error)"))
        }
    }
}
