public import Foundation

/// A store configuration file: `userstore.json` / `globalstore.json` in the SDK's format.
///
/// ```json
/// { "soups": [ { "soupName": "contacts",
///                "indexes": [ {"path": "Id", "type": "string"}, {"path": "__local__", "type": "string"} ] } ] }
/// ```
public struct StoreConfig: Sendable, Equatable {
    /// One soup of the file.
    public struct SoupConfig: Sendable, Equatable {
        /// The soup's name.
        public var soupName: String
        /// The soup's index specs (`{"path": …, "type": "string"|"integer"|"floating"|"full_text"|"json1"}`).
        public var indexes: [IndexSpec]
    }

    /// A soup entry that could not be read, and why.
    public struct Rejection: Sendable, Equatable {
        /// The entry's position in the `soups` array.
        public var position: Int
        /// Its `soupName`, when it has one.
        public var soupName: String?
        /// What is wrong with it.
        public var reason: String
    }

    /// The valid soups of the file, in order.
    public var soups: [SoupConfig]
    /// The entries that were skipped, with why (the SDK's behaviour: the others still load).
    public var rejected: [Rejection] = []

    /// Reads a configuration from JSON bytes.
    ///
    /// A soup entry with a problem (missing key, unknown index type, invalid soup name or path,
    /// no indexes) is skipped and listed in ``rejected``; the others load.
    ///
    /// - Throws: ``SmartStoreError/invalidConfig(_:)`` when the data is not JSON or has no
    ///   `soups` array.
    public init(data: some Collection<UInt8>) throws {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: data)
        } catch {
            throw SmartStoreError.invalidConfig("Store config is not valid JSON: \(error)")
        }
        guard let soups = value["soups"]?.arrayValue else {
            throw SmartStoreError.invalidConfig("Store config needs a \"soups\" array")
        }
        self.soups = []
        for (index, soup) in soups.enumerated() {
            do {
                self.soups.append(try Self.soup(soup, at: index))
            } catch {
                rejected.append(Rejection(position: index, soupName: soup["soupName"]?.stringValue, reason: "\(error)"))
            }
        }
    }

    /// One soup entry, or the first problem with it.
    private static func soup(_ soup: JSONValue, at index: Int) throws -> SoupConfig {
        guard let name = soup["soupName"]?.stringValue else {
            throw SmartStoreError.invalidConfig("soups[\(index)] has no \"soupName\" string")
        }
        guard let indexes = soup["indexes"]?.arrayValue else {
            throw SmartStoreError.invalidConfig("soup \(name) has no \"indexes\" array")
        }
        let specs = try indexes.enumerated().map { position, index in
            guard let path = index["path"]?.stringValue, let typeName = index["type"]?.stringValue else {
                throw SmartStoreError.invalidConfig("soup \(name) index \(position) needs \"path\" and \"type\" strings")
            }
            guard let type = SoupIndexType(rawValue: typeName) else {
                throw SmartStoreError.invalidConfig("soup \(name) index \(path) has unknown type \"\(typeName)\"")
            }
            return IndexSpec(path, type)
        }
        do {
            try SmartStore.validate(soup: name, specs: specs)
        } catch let error as SmartStoreError {
            throw SmartStoreError.invalidConfig("soup \(name): \(error)")
        }
        return SoupConfig(soupName: name, indexes: specs)
    }

    /// Reads a configuration file.
    public init(contentsOf url: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw SmartStoreError.invalidConfig("Cannot read store config \(url.path): \(error.localizedDescription)")
        }
        try self.init(data: data)
    }
}

extension SmartStore {
    /// Registers the soups of a configuration; soups that already exist are skipped (not altered).
    ///
    /// - Returns: the names of the soups that were registered.
    @discardableResult
    public func apply(_ config: StoreConfig) throws -> [String] {
        var registered: [String] = []
        for soup in config.soups where try !hasSoup(soup.soupName) {
            try registerSoup(soup.soupName, indexSpecs: soup.indexes)
            registered.append(soup.soupName)
        }
        return registered
    }
}
