import Foundation

extension SmartStore {
    /// Saves `Codable` models in a soup without hand-written JSON, and returns them as saved.
    ///
    /// Models map to entries through `JSONEncoder` / `JSONDecoder`. To read back the entry id,
    /// give the model a `_soupEntryId` property (e.g. `var _soupEntryId: Int64?`, or a coding
    /// key mapped to it); an entry with one is updated, one without is created, unless an
    /// `externalIdPath` is given.
    @discardableResult
    public func upsertModels<Model: Codable>(_ models: [Model], in soupName: String, externalIdPath: String = "_soupEntryId") throws
        -> [Model]
    {
        var entries: [JSONValue] = []
        for model in models { entries.append(try Self.encode(model)) }
        var saved: [Model] = []
        for entry in try upsert(entries, in: soupName, externalIdPath: externalIdPath) {
            saved.append(try Self.decode(Model.self, from: entry))
        }
        return saved
    }

    /// Saves one `Codable` model. See ``upsertModels(_:in:externalIdPath:)``.
    @discardableResult
    public func upsertModel<Model: Codable>(_ model: Model, in soupName: String, externalIdPath: String = "_soupEntryId") throws -> Model {
        try upsertModels([model], in: soupName, externalIdPath: externalIdPath)[0]
    }

    /// Runs a query whose results are entries (not a smart query) and decodes them as `Model`.
    public func query<Model: Decodable>(_ spec: QuerySpec, as type: Model.Type, pageIndex: Int = 0) throws -> [Model] {
        guard !spec.returnsRows else {
            throw SmartStoreError.invalidQuerySpec("Decoding models needs a query returning entries (no selectPaths, not smart)")
        }
        var models: [Model] = []
        for entry in try query(spec, pageIndex: pageIndex) { models.append(try Self.decode(Model.self, from: entry)) }
        return models
    }

    /// Decodes the column `column` of each row of a smart query as `Model` (use `{soup:_soup}`).
    public func query<Model: Decodable>(
        _ spec: QuerySpec, as type: Model.Type, column: Int, pageIndex: Int = 0,
        arguments: [JSONValue]? = nil
    ) throws -> [Model] {
        var models: [Model] = []
        for row in try query(spec, pageIndex: pageIndex, arguments: arguments) {
            guard let values = row.arrayValue, column < values.count else {
                throw SmartStoreError.invalidQuerySpec("Row has no column \(column)")
            }
            models.append(try Self.decode(Model.self, from: values[column]))
        }
        return models
    }

    static func encode<Model: Encodable>(_ model: Model) throws -> JSONValue {
        do {
            return try JSONValue(parsing: JSONEncoder().encode(model))
        } catch {
            throw SmartStoreError.malformedJSON("Cannot encode \(Model.self): \(error)")
        }
    }

    static func decode<Model: Decodable>(_ type: Model.Type, from value: JSONValue) throws -> Model {
        do {
            return try JSONDecoder().decode(Model.self, from: Data(value.jsonBytes))
        } catch {
            throw SmartStoreError.malformedJSON("Cannot decode \(Model.self) from entry: \(error)")
        }
    }
}
