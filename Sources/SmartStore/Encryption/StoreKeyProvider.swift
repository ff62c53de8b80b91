public import Foundation

/// Where a ``StoreDirectory`` gets the key of each store it opens.
///
/// An app implements it over its secret storage, or uses one of the providers here:
/// `KeychainStoreKeyProvider` on Apple platforms, ``FileStoreKeyProvider`` (a file only its
/// owner can read) or ``EnvironmentStoreKeyProvider`` elsewhere. The SDK uses one key for every
/// store; a provider may give each store its own.
public protocol StoreKeyProvider: Sendable {
    /// The key of the store `name` of `user` (`nil` for a global store), or `nil` to keep
    /// that store in plaintext.
    func key(forStore name: String, user: String?) throws -> StoreKey?
}

/// The passphrase in an environment variable, for every store (servers, tools, CI).
///
/// <!-- snippet: Snippets/SmartStoreReference.swift#keyProvider -->
/// ```swift
/// let stores = StoreDirectory(root: root, keyProvider: EnvironmentStoreKeyProvider(variable: "MSYNC_STORE_KEY"))
/// ```
public struct EnvironmentStoreKeyProvider: StoreKeyProvider {
    /// The variable's name.
    public let variable: String
    /// The PBKDF2 iteration count of the passphrase.
    public let kdfIterations: Int

    /// Reads the passphrase from `variable`.
    public init(variable: String = "MSYNC_STORE_KEY", kdfIterations: Int = StoreKey.defaultKDFIterations) {
        self.variable = variable
        self.kdfIterations = kdfIterations
    }

    /// The passphrase, in SQLCipher's key syntax (``StoreKey/init(sqlcipherKey:kdfIterations:)``).
    ///
    /// - Throws: ``SmartStoreError/invalidKey(_:)`` when the variable is unset or empty: a
    ///   store meant to be encrypted is never created in plaintext by mistake.
    public func key(forStore name: String, user: String?) throws -> StoreKey? {
        guard let value = ProcessInfo.processInfo.environment[variable], !value.isEmpty else {
            throw SmartStoreError.invalidKey("The environment variable \(variable) holds no store key")
        }
        return StoreKey(sqlcipherKey: value, kdfIterations: kdfIterations)
    }
}

/// A random raw key kept in a file that only its owner may read (mode 0600), made on first use.
///
/// For Linux services and tools. The file holds the key as SQLCipher's `x'…'` text, so
/// `sqlcipher` opens the stores with `PRAGMA key = "x'…'"` taken from it.
public struct FileStoreKeyProvider: StoreKeyProvider {
    /// The key file.
    public let file: URL

    /// Keeps the key in `file`.
    public init(file: URL) {
        self.file = file
    }

    /// The key in the file, made (random, 32 bytes) when there is no file yet.
    ///
    /// - Throws: ``SmartStoreError/invalidKey(_:)`` when the file can be read by others than
    ///   its owner, or does not hold a raw key.
    public func key(forStore name: String, user: String?) throws -> StoreKey? {
        let path = file.path
        if !FileManager.default.fileExists(atPath: path) { try create(path) }
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        if let permissions = attributes[.posixPermissions] as? Int, permissions & 0o077 != 0 {
            throw SmartStoreError.invalidKey(
                "The key file \(path) can be read by others (mode \(String(permissions, radix: 8))): make it 0600")
        }
        let text = try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let key = StoreKey(sqlcipherKey: text)
        guard case .raw = key.material else { throw SmartStoreError.invalidKey("The key file \(path) does not hold x'<64 hex digits>'") }
        return key
    }

    private func create(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let text = "x'" + StoreKey.hex(bytes) + "'\n"
        // Created with 0600 from the start (never readable by others, even for a moment), then
        // linked into place, which fails rather than replace a file another process made.
        let temporary = path + ".new-" + UUID().uuidString
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw SmartStoreError.invalidKey("Cannot create the key file \(path)") }
        defer { unlink(temporary) }
        let written = Array(text.utf8).withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = Durability.synchronize(descriptor: descriptor)
        close(descriptor)
        guard written == text.utf8.count, synced == 0, link(temporary, path) == 0 || errno == EEXIST else {
            throw SmartStoreError.invalidKey("Cannot create the key file \(path)")
        }
    }
}

/// The platform's place for the store key: the Keychain on Apple platforms
/// (`KeychainStoreKeyProvider`), and elsewhere the file `msync/store.key` (mode 0600) under
/// `$XDG_CONFIG_HOME` or `~/.config` (``FileStoreKeyProvider``). The key is random and made on
/// first use.
public struct PlatformStoreKeyProvider: StoreKeyProvider {
    /// The platform's provider.
    public init() {}

    /// The platform's key.
    public func key(forStore name: String, user: String?) throws -> StoreKey? {
        #if canImport(Security)
            try KeychainStoreKeyProvider().key(forStore: name, user: user)
        #else
            try FileStoreKeyProvider(file: Self.keyFile(environment: ProcessInfo.processInfo.environment)).key(forStore: name, user: user)
        #endif
    }

    /// The key file off Apple platforms, for the process environment `environment`:
    /// `$XDG_CONFIG_HOME/msync/store.key`, else `$HOME/.config/msync/store.key`.
    /// (`NSHomeDirectory()`, not `homeDirectoryForCurrentUser`, which iOS, tvOS and watchOS lack.)
    public static func keyFile(environment: [String: String]) -> URL {
        let base =
            environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: environment["HOME"] ?? NSHomeDirectory()).appendingPathComponent(".config")
        return base.appendingPathComponent("msync").appendingPathComponent("store.key")
    }
}
