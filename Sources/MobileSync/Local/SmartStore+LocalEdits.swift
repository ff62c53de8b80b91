public import FastJSON
public import SmartStore

extension SmartStore {
    /// Creates a record locally, ready for sync up: a local id, `attributes.type`, and the
    /// dirty flags set. Returns the saved entry.
    @discardableResult
    public func createLocally(_ fields: [String: JSONValue], objectType: String, in soup: String, idField: String = "Id") throws
        -> JSONValue
    {
        var record = fields
        record[idField] = .string(LocalFields.newLocalId())
        record["attributes"] = ["type": .string(objectType)]
        record[LocalFields.local] = true
        record[LocalFields.locallyCreated] = true
        record[LocalFields.locallyUpdated] = false
        record[LocalFields.locallyDeleted] = false
        return try create(.object(record), in: soup)
    }

    /// Applies local changes to an entry (by `_soupEntryId`) and marks it updated.
    @discardableResult
    public func updateLocally(_ changes: [String: JSONValue], entryId: Int64, in soup: String) throws -> JSONValue {
        guard case .object(var record)? = try retrieve([entryId], from: soup).first else {
            throw SmartStoreError.entryNotFound(soup: soup, id: entryId)
        }
        for (key, value) in changes { record[key] = value }
        record[LocalFields.local] = true
        record[LocalFields.locallyUpdated] = true
        return try update(.object(record), id: entryId, in: soup)
    }

    /// Marks an entry deleted locally (it disappears on the next sync up, locally and on the server).
    @discardableResult
    public func deleteLocally(entryId: Int64, in soup: String) throws -> JSONValue {
        guard case .object(var record)? = try retrieve([entryId], from: soup).first else {
            throw SmartStoreError.entryNotFound(soup: soup, id: entryId)
        }
        record[LocalFields.local] = true
        record[LocalFields.locallyDeleted] = true
        return try update(.object(record), id: entryId, in: soup)
    }
}
