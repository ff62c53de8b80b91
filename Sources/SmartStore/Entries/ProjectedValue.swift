import GRDB

/// How a JSON value is written into an index column.
///
/// One rule for every index type: the scalar is bound as it is and SQLite's column affinity
/// converts it (`5` into a `string` column is `'5'`, `"5"` into an `integer` column is `5`);
/// booleans become `1` / `0`, exactly what `json_extract` gives for json1 and non-indexed
/// paths; objects and arrays become their JSON text; a missing path or `null` is `NULL`.
enum ProjectedValue {
    static func databaseValue(_ value: JSONValue?) -> DatabaseValue {
        switch value {
        case nil, .null?: .null
        case .bool(let bool)?: (bool ? 1 : 0).databaseValue
        case .int(let int)?: int.databaseValue
        case .double(let double)?: double.databaseValue
        case .string(let string)?: string.databaseValue
        case let composite?: composite.jsonString.databaseValue
        }
    }

    /// Converts a SQLite result value to JSON (blobs become base64 strings).
    static func jsonValue(_ value: DatabaseValue) -> JSONValue {
        switch value.storage {
        case .null: .null
        case .int64(let int): .int(int)
        case .double(let double): .double(double)
        case .string(let string): .string(string)
        case .blob(let data): .string(data.base64EncodedString())
        }
    }
}
