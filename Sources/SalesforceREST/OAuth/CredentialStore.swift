public import Foundation

/// Where logins are kept between runs, by account name (`default`, `sandbox`, …).
///
/// ``FileCredentialStore`` keeps them in owner-only files (the default on Linux);
/// `KeychainCredentialStore` in the Keychain (Apple platforms). Apps may supply their own.
public protocol CredentialStore: Sendable {
    /// The credentials saved under `account`, or `nil` when there are none.
    func load(account: String) throws -> OAuthCredentials?
    /// Saves (or replaces) the credentials of `account`.
    func save(_ credentials: OAuthCredentials, account: String) throws
    /// Forgets `account`'s credentials (nothing happens when there are none).
    func delete(account: String) throws
}

/// Why a credential store failed.
public struct CredentialStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, with the path or account.
    public var description: String
    /// The keychain access group the app is not entitled to, when that is what failed
    /// (`KeychainCredentialStore` with an access group missing from the app's or the
    /// extension's `keychain-access-groups` entitlement); nil otherwise.
    public var accessGroup: String?

    init(_ description: String) { self.description = description }

    /// Checks an account name: 1 to 64 letters, digits, `.`, `_` and `-`, not starting with a
    /// dot (so it is a safe file name everywhere).
    public static func check(account: String) throws(CredentialStoreError) {
        let allowed = account.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
        }
        guard (1...64).contains(account.utf8.count), allowed, !account.hasPrefix(".") else {
            throw CredentialStoreError("account name \"\(account.prefix(80))\" must be 1 to 64 letters, digits, '.', '_' or '-'")
        }
    }
}

/// The platform's store: the Keychain on Apple platforms, else ``FileCredentialStore`` in
/// `$XDG_CONFIG_HOME/msync/credentials` (`~/.config/msync/credentials` when unset). An absolute
/// `XDG_CONFIG_HOME` chooses the file store on Apple platforms too (a test's, or a tool's, own
/// configuration folder).
public func platformCredentialStore(environment: [String: String] = ProcessInfo.processInfo.environment) -> any CredentialStore {
    #if canImport(Security)
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            return FileCredentialStore(directory: FileCredentialStore.defaultDirectory(environment: environment))
        }
        return KeychainCredentialStore()
    #else
        return FileCredentialStore(directory: FileCredentialStore.defaultDirectory(environment: environment))
    #endif
}
