import Crypto
import EncryptedSQLite
public import Foundation
import Locking

/// Values by key, encrypted, beside the soups: the SDK's `KeyValueEncryptedFileStore` (iOS
/// SalesforceSDKCore, Android SmartStore), for what is too large or too plain for a soup.
///
/// The store is a folder. Each entry is two files named by the SHA-256 of its key, holding the
/// value and the key, each sealed with AES-256-GCM: a fresh nonce per write, the file's name
/// authenticated with it, so a changed or swapped file fails to open. The AES key is the store's
/// own: HKDF-SHA256 over what the ``StoreKey`` derives to (PBKDF2-HMAC-SHA512 for a passphrase,
/// a raw key as it is) and a random salt kept in the folder, so two stores never share a key,
/// nor a store and the SmartStores the same ``StoreKey`` encrypts. Writes replace files
/// atomically; values are read and written whole, in memory. A new store's folder appears
/// whole (made aside, then renamed), so two processes creating it at once agree on its salt.
///
/// <!-- snippet: Snippets/SmartStoreReference.swift#keyValue -->
/// ```swift
/// let cache = try KeyValueEncryptedFileStore(parentDirectory: appSupport, name: "images", key: key)
/// try cache.write(Data(image), forKey: "001xx-logo")
/// let png = try cache.read(forKey: "001xx-logo")
/// ```
public final class KeyValueEncryptedFileStore: Sendable {
    /// The store's folder.
    public let directory: URL
    /// The store's name (its folder's name).
    public let name: String
    /// The longest store name (the SDK's `maxStoreNameLength`).
    public static let maxNameLength = 96

    private let key: SymmetricKeyBox
    private let writes = Locked(())
    private static let version = Data("msync-kv 1\n".utf8)
    private static let checkText = Data("msync key-value store".utf8)

    /// Opens the store `name` under `parentDirectory` with `key`, creating it if needed.
    ///
    /// - Throws: ``SmartStoreError/invalidStoreName(_:)`` for a name ``isValidName(_:)``
    ///   refuses; ``SmartStoreError/wrongKey(path:)`` when `key` is not the store's;
    ///   ``SmartStoreError/corrupted(path:detail:)`` for a folder that is not such a store.
    public init(parentDirectory: URL, name: String, key: StoreKey) throws {
        guard Self.isValidName(name) else { throw SmartStoreError.invalidStoreName(name) }
        let directory = parentDirectory.appendingPathComponent(name)
        self.directory = directory
        self.name = name
        do {
            if !FileManager.default.fileExists(atPath: directory.appendingPathComponent("salt").path) {
                try Self.create(directory, key: key)
            }
            let salt = try Data(contentsOf: directory.appendingPathComponent("salt"))
            guard salt.count == 16 else { throw SmartStoreError.corrupted(path: directory.path, detail: "its salt is not 16 bytes") }
            let derived = try Self.storeKey(key, salt: salt)
            let check = try Data(contentsOf: directory.appendingPathComponent("check"))
            guard let opened = try? AES.GCM.open(AES.GCM.SealedBox(combined: check), using: derived), opened == Self.checkText else {
                throw SmartStoreError.wrongKey(path: directory.path)
            }
            self.key = SymmetricKeyBox(derived)
        } catch let error as SmartStoreError {
            throw error
        } catch {
            throw SmartStoreError.database("Key-value store \(directory.path): \(error)")
        }
    }

    /// Makes the store's folder aside (version, salt, check value) and renames it into place;
    /// when another process got there first, its folder stays and this one goes.
    private static func create(_ directory: URL, key: StoreKey) throws {
        let files = FileManager.default
        let parent = directory.deletingLastPathComponent()
        try files.createDirectory(at: parent, withIntermediateDirectories: true)
        let staging = parent.appendingPathComponent(".\(directory.lastPathComponent).\(UUID().uuidString)")
        try files.createDirectory(at: staging, withIntermediateDirectories: false)
        defer { try? files.removeItem(at: staging) }
        var salt = [UInt8](repeating: 0, count: 16)
        var generator = SystemRandomNumberGenerator()
        for index in salt.indices { salt[index] = UInt8.random(in: .min ... .max, using: &generator) }
        guard let check = try AES.GCM.seal(checkText, using: storeKey(key, salt: Data(salt))).combined else {
            throw SmartStoreError.database("AES-GCM gave no combined box")
        }
        try version.write(to: staging.appendingPathComponent("version"))
        try check.write(to: staging.appendingPathComponent("check"))
        try Data(salt).write(to: staging.appendingPathComponent("salt"))
        // An empty folder left where the store goes (an interrupted creation) is replaced.
        if (try? files.contentsOfDirectory(atPath: directory.path))?.isEmpty == true { try? files.removeItem(at: directory) }
        do {
            try files.moveItem(at: staging, to: directory)
        } catch  where files.fileExists(atPath: directory.appendingPathComponent("salt").path) {
            // Made by another process meanwhile: open that one.
        }
    }

    /// The store's AES key: HKDF-SHA256 over the key material's derivation, with the salt.
    private static func storeKey(_ key: StoreKey, salt: Data) throws -> SymmetricKey {
        let material = SymmetricKey(data: try key.material.derive(salt: Array(salt)).encryptionKeyBytes)
        return HKDF<SHA256>.deriveKey(
            inputKeyMaterial: material, salt: salt, info: Data("msync key-value store v1".utf8), outputByteCount: 32)
    }

    /// Whether `name` can name a store: 1 to ``maxNameLength`` letters, digits and underscores
    /// (the SDK's rule).
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= maxNameLength
            && name.utf8.allSatisfy {
                $0 == UInt8(ascii: "_") || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
            }
    }

    // MARK: - Throwing forms

    /// Saves `data` under `key`, replacing what was there.
    public func write(_ data: Data, forKey key: String) throws {
        let (valueFile, keyFile) = files(for: key)
        try writes.withLock { _ in
            do {
                // The value first: an entry counts once its key file is there too.
                try seal(data, as: valueFile).write(to: valueFile, options: .atomic)
                try seal(Data(key.utf8), as: keyFile).write(to: keyFile, options: .atomic)
            } catch let error as SmartStoreError {
                throw error
            } catch {
                throw SmartStoreError.database("Key-value store \(directory.path): \(error)")
            }
        }
    }

    /// The data saved under `key`, or nil when there is none.
    ///
    /// - Throws: ``SmartStoreError/corrupted(path:detail:)`` for a value file that does not open
    ///   with the store's key (altered, or swapped with another entry's); a file that cannot be
    ///   read.
    public func read(forKey key: String) throws -> Data? {
        let (valueFile, keyFile) = files(for: key)
        guard FileManager.default.fileExists(atPath: keyFile.path), FileManager.default.fileExists(atPath: valueFile.path) else {
            return nil
        }
        let sealed: Data
        do {
            sealed = try Data(contentsOf: valueFile)
        } catch {
            throw SmartStoreError.database("Key-value store \(directory.path): \(error)")
        }
        return try open(sealed, file: valueFile)
    }

    /// Deletes the value under `key`; returns whether there was one.
    @discardableResult
    public func delete(forKey key: String) throws -> Bool {
        let (valueFile, keyFile) = files(for: key)
        return try writes.withLock { _ in
            guard FileManager.default.fileExists(atPath: keyFile.path) || FileManager.default.fileExists(atPath: valueFile.path) else {
                return false
            }
            do {
                // The key first: the entry stops counting at once.
                if FileManager.default.fileExists(atPath: keyFile.path) { try FileManager.default.removeItem(at: keyFile) }
                if FileManager.default.fileExists(atPath: valueFile.path) { try FileManager.default.removeItem(at: valueFile) }
                return true
            } catch {
                throw SmartStoreError.database("Key-value store \(directory.path): \(error)")
            }
        }
    }

    /// Every key with a value, sorted.
    ///
    /// - Throws: ``SmartStoreError/corrupted(path:detail:)`` when a key file does not open.
    public func keys() throws -> [String] {
        try entries().map { file in
            let sealed = try Data(contentsOf: file)
            return String(decoding: try open(sealed, file: file), as: UTF8.self)
        }
        .sorted()
    }

    /// Removes every value; the store stays, with its key.
    ///
    /// - Throws: ``SmartStoreError/database(_:)`` when a file cannot be removed (those before it are gone).
    public func deleteAll() throws {
        try writes.withLock { _ in
            do {
                // Key files first: a half-removed entry stops counting at once.
                for file in entryFiles(suffix: ".key") + entryFiles(suffix: ".value") { try FileManager.default.removeItem(at: file) }
            } catch {
                throw SmartStoreError.database("Key-value store \(directory.path): \(error)")
            }
        }
    }

    /// How many whole entries the store holds, without opening them (the SDK's `count()` in
    /// MobileSyncSDKCompat).
    package var entryCount: Int { entries().count }

    /// Every key whose files open, sorted; entries that do not open are left out (the SDK's
    /// `allKeys()` in MobileSyncSDKCompat; ``keys()`` throws instead).
    package func readableKeys() -> [String] {
        entries().compactMap { file in
            (try? Data(contentsOf: file)).flatMap { try? open($0, file: file) }.map { String(decoding: $0, as: UTF8.self) }
        }
        .sorted()
    }

    // MARK: - Files

    private func files(for key: String) -> (value: URL, key: URL) {
        let digest = SHA256.hash(data: Data(key.utf8)).map { String(format: "%02x", $0) }.joined()
        return (directory.appendingPathComponent(digest + ".value"), directory.appendingPathComponent(digest + ".key"))
    }

    /// The key files of whole entries (a value file beside them).
    private func entries() -> [URL] {
        entryFiles(suffix: ".key").filter { file in
            FileManager.default.fileExists(atPath: file.deletingPathExtension().appendingPathExtension("value").path)
        }
    }

    private func entryFiles(suffix: String) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(suffix) && $0.utf8.count == 64 + suffix.utf8.count }.map { directory.appendingPathComponent($0) }
    }

    /// `data` sealed for the file `file` (its name is authenticated with it).
    private func seal(_ data: Data, as file: URL) throws -> Data {
        guard let combined = try AES.GCM.seal(data, using: key.key, authenticating: Data(file.lastPathComponent.utf8)).combined else {
            throw SmartStoreError.database("AES-GCM gave no combined box")
        }
        return combined
    }

    private func open(_ sealed: Data, file: URL) throws -> Data {
        do {
            return try AES.GCM.open(AES.GCM.SealedBox(combined: sealed), using: key.key, authenticating: Data(file.lastPathComponent.utf8))
        } catch {
            throw SmartStoreError.corrupted(path: file.path, detail: "the entry does not open with the store's key")
        }
    }
}

/// `@unchecked`: `SymmetricKey` is immutable; CryptoKit's `Sendable` marking trails swift-crypto's
/// on the oldest Apple SDKs.
private struct SymmetricKeyBox: @unchecked Sendable {
    let key: SymmetricKey
    init(_ key: SymmetricKey) { self.key = key }
}
