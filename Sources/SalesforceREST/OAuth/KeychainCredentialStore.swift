#if canImport(Security)
    import Foundation
    import Keychain

    /// Credentials in the Keychain: one generic password per account (its JSON), readable after
    /// the first unlock, on this device only — where the SDK keeps its OAuth tokens.
    ///
    /// On macOS the items go to the data-protection keychain, as on iOS (the file-based one ties
    /// an item to the binary that made it and prompts when another reads it); a process without
    /// a keychain entitlement (a command-line tool) falls back to the file-based one, unless an
    /// access group is named: a group the app is not entitled to is an error.
    public struct KeychainCredentialStore: CredentialStore {
        /// The Keychain items' service.
        public let service: String
        /// The keychain access group the items are shared in (an app and its extensions name the
        /// same one); nil: the app's default group.
        public let accessGroup: String?

        /// Keeps credentials under `service`, in `accessGroup` when given.
        public init(service: String = "msync.oauth", accessGroup: String? = nil) {
            self.service = service
            self.accessGroup = accessGroup
        }

        /// The account's credentials, or `nil` when the Keychain has none.
        ///
        /// - Throws: ``CredentialStoreError``; with ``CredentialStoreError/accessGroup`` set when
        ///   the app is not entitled to ``accessGroup``.
        public func load(account: String) throws -> OAuthCredentials? {
            try CredentialStoreError.check(account: account)
            guard let data = try keychain({ try item(account).read() }) else { return nil }
            do {
                return try JSONDecoder().decode(OAuthCredentials.self, from: data)
            } catch {
                throw CredentialStoreError("the Keychain item of account \(account) does not hold credentials")
            }
        }

        /// Saves the account's credentials, replacing what was there.
        public func save(_ credentials: OAuthCredentials, account: String) throws {
            try CredentialStoreError.check(account: account)
            let data = try JSONEncoder().encode(credentials)
            let item = item(account)
            try keychain {
                if try item.update(data) { return }
                do {
                    try item.add(data)
                } catch KeychainError.duplicateItem {
                    // Another process added it meanwhile: replace what it wrote.
                    _ = try item.update(data)
                }
            }
        }

        /// Deletes the account's item.
        public func delete(account: String) throws {
            try CredentialStoreError.check(account: account)
            try keychain { try item(account).delete() }
        }

        private func item(_ account: String) -> GenericPassword {
            GenericPassword(service: service, account: account, accessGroup: accessGroup)
        }

        /// The body's result; a Keychain failure as a ``CredentialStoreError``.
        private func keychain<T>(_ body: () throws -> T) throws -> T {
            do {
                return try body()
            } catch let error as KeychainError {
                var failure = CredentialStoreError(error.message("credentials of service \(service)"))
                if case .accessGroupNotEntitled(let group) = error { failure.accessGroup = group }
                throw failure
            }
        }
    }
#endif
