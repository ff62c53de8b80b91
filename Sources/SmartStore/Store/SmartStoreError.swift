/// Everything that can go wrong in a store, with the SDK's wording where apps and tests rely on it.
public enum SmartStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The soup is not registered.
    case unknownSoup(String)
    /// A soup name that the store refuses (empty, too long, or with characters outside `[A-Za-z0-9_.-]`).
    case invalidSoupName(String)
    /// A store name that the store refuses (it becomes a directory name).
    case invalidStoreName(String)
    /// An index or query path that the store refuses.
    case invalidPath(String)
    /// Registering a soup needs at least one index spec.
    case noIndexSpecs(soup: String)
    /// Two index specs share a path.
    case duplicateIndexPath(soup: String, path: String)
    /// A Smart SQL text that cannot be translated (not a SELECT, bad reference, unknown soup…).
    case invalidSmartSQL(String)
    /// SQLite rejected the translated query.
    case queryFailed(sql: String, message: String)
    /// A query spec that is incomplete or inconsistent.
    case invalidQuerySpec(String)
    /// An entry to save is not a JSON object, or a page is not valid JSON.
    case malformedJSON(String)
    /// Upsert by external id: the path is not indexed.
    case noIndexForPath(soup: String, path: String)
    /// Upsert by external id: an entry has no value at the path.
    case emptyExternalId(path: String)
    /// Upsert by external id: the value matches several entries.
    case duplicateExternalId(soup: String, path: String, value: String)
    /// Update of an entry id that does not exist.
    case entryNotFound(soup: String, id: Int64)
    /// A whole-entry update or upsert of a copy read before the entry's last write: the copy's
    /// `_soupLastModifiedDate` is `read`, the entry's is `current` (nil: the copy's is not a
    /// number). Nothing was written. Read the entry again and apply the change to it, or use
    /// `modify`, which does both in one transaction.
    case staleEntry(soup: String, id: Int64, read: Int64?, current: Int64)
    /// A store configuration file that cannot be used.
    case invalidConfig(String)
    /// A failure of the underlying database.
    case database(String)
    /// A store key that cannot be used (a raw key of the wrong length).
    case invalidKey(String)
    /// Apple platforms: the app (or extension) is not entitled to the keychain access group that
    /// `KeychainStoreKeyProvider` names: add it to the `keychain-access-groups` entitlement of
    /// the app and of each extension that opens the store.
    case keychainAccessGroupNotEntitled(String)
    /// The key does not open the encrypted store at the path (or its first page is damaged).
    /// The store is left as it is.
    case wrongKey(path: String)
    /// The store at the path is encrypted, and no key was given.
    case keyRequired(path: String)
    /// A key was given, but the store at the path is not encrypted.
    case notEncrypted(path: String)
    /// A page of the encrypted store does not authenticate: the file was altered or damaged.
    case corrupted(path: String, detail: String)
    /// The operation needs the store closed, and this process has it open.
    case storeInUse(path: String)

    /// The error in words, naming the soup, path or query at fault.
    public var description: String {
        switch self {
        case .unknownSoup(let soup): "Soup: \(soup) does not exist"
        case .invalidSoupName(let name): "Invalid soup name: '\(name)'"
        case .invalidStoreName(let name): "Invalid store name: '\(name)'"
        case .invalidPath(let path): "Invalid path: '\(path)'"
        case .noIndexSpecs(let soup): "Bogus indexSpecs for soup \(soup): at least one index spec is required"
        case .duplicateIndexPath(let soup, let path): "Soup \(soup) has more than one index spec for path \(path)"
        case .invalidSmartSQL(let message): message
        case .queryFailed(let sql, let message): "Query failed: \(message) (SQL: \(sql))"
        case .invalidQuerySpec(let message): message
        case .malformedJSON(let message): message
        case .noIndexForPath(let soup, let path): "\(soup) does not have an index on \(path)"
        case .emptyExternalId(let path):
            "For upsert with external ID path '\(path)', value cannot be empty for any entries."
        case .duplicateExternalId(_, let path, let value):
            "There are more than one soup elements where \(path) is \(value)"
        case .entryNotFound(let soup, let id): "Entry \(id) does not exist in soup \(soup)"
        case .staleEntry(let soup, let id, let read, let current):
            "Entry \(id) of soup \(soup) changed since this copy was read (_soupLastModifiedDate \(read.map(String.init) ?? "not a number"), now \(current)): read it again"
        case .invalidConfig(let message): message
        case .database(let message): message
        case .invalidKey(let message): message
        case .keychainAccessGroupNotEntitled(let group):
            "The app is not entitled to keychain access group \(group), where the store key is kept: add it to the "
                + "keychain-access-groups entitlement of the app and of each extension, with the team prefix"
        case .wrongKey(let path): "The key does not open the encrypted store at \(path) (or its first page is damaged)"
        case .keyRequired(let path): "The store at \(path) is encrypted: open it with its key"
        case .notEncrypted(let path): "The store at \(path) is not encrypted: encrypt it first (SmartStore.encrypt(storeAt:with:))"
        case .corrupted(let path, let detail): "The encrypted store at \(path) was altered or damaged: \(detail)"
        case .storeInUse(let path): "The store at \(path) is open in this process: close it first"
        }
    }
}
