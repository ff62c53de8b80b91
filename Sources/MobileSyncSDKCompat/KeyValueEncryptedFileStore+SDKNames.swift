public import Foundation
public import SmartStore

/// The SDK's quiet forms of the key-value store: they return `false`, `nil` or nothing where
/// the core's `write(_:forKey:)`, `read(forKey:)`, `delete(forKey:)`, `keys()` and
/// `deleteAll()` throw.
extension KeyValueEncryptedFileStore {
    /// Saves `value` under `key`; whether it was saved (the SDK's `saveValue(_:forKey:)`).
    @discardableResult
    public func saveValue(_ value: String, forKey key: String) -> Bool { saveData(Data(value.utf8), forKey: key) }

    /// Saves `data` under `key`; whether it was saved (the SDK's `saveData(_:forKey:)`).
    @discardableResult
    public func saveData(_ data: Data, forKey key: String) -> Bool { (try? write(data, forKey: key)) != nil }

    /// The data under `key`, or nil when there is none or it cannot be read (the SDK's `readData(key:)`).
    public func readData(key: String) -> Data? { (try? read(forKey: key)) ?? nil }

    /// The text under `key` (the SDK's subscript); setting nil removes it.
    public subscript(key: String) -> String? {
        get { readData(key: key).map { String(decoding: $0, as: UTF8.self) } }
        set {
            if let newValue { saveValue(newValue, forKey: key) } else { removeValue(forKey: key) }
        }
    }

    /// Removes the value under `key`; false only when it could not be removed (the SDK's
    /// `removeValue(forKey:)`: a key that was absent is removed too).
    @discardableResult
    public func removeValue(forKey key: String) -> Bool { (try? delete(forKey: key)) != nil }

    /// Removes every value it can (the SDK's `removeAll()`); the store stays, with its key.
    public func removeAll() { try? deleteAll() }

    /// Every key whose files open, sorted; entries that do not open are left out (the SDK's
    /// `allKeys()`; `keys()` throws instead).
    public func allKeys() -> [String] { readableKeys() }

    /// How many values the store holds (the SDK's `count()`).
    public func count() -> Int { entryCount }

    /// Whether the store holds no value (the SDK's `isEmpty()`).
    public func isEmpty() -> Bool { entryCount == 0 }
}
