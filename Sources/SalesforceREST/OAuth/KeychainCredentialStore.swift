#if canImport(Security)
    import Foundation
    import Security

    /// Credentials in the Keychain: one generic password per account (its JSON), readable after
    /// the first unlock, on this device only — where the SDK keeps its OAuth tokens.
    public struct KeychainCredentialStore: CredentialStore {
        /// The Keychain items' service.
        public let service: String

        /// Keeps credentials under `service`.
        public init(service: String = "msync.oauth") {
            self.service = service
        }

        /// The account's credentials, or `nil` when the Keychain has none.
        public func load(account: String) throws -> OAuthCredentials? {
            try CredentialStoreError.check(account: account)
            var query = baseQuery(account)
            query[kSecReturnData as String] = true
            query[kSecMatchLimit as String] = kSecMatchLimitOne
            var item: CFTypeRef?
            let status = SecItemCopyMatching(query as CFDictionary, &item)
            if status == errSecItemNotFound { return nil }
            guard status == errSecSuccess, let data = item as? Data else {
                throw CredentialStoreError("the Keychain cannot read account \(account) (status \(status))")
            }
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
            let update = SecItemUpdate(baseQuery(account) as CFDictionary, [kSecValueData as String: data] as CFDictionary)
            if update == errSecSuccess { return }
            guard update == errSecItemNotFound else {
                throw CredentialStoreError("the Keychain refused account \(account) (status \(update))")
            }
            var attributes = baseQuery(account)
            attributes[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            attributes[kSecValueData as String] = data
            let status = SecItemAdd(attributes as CFDictionary, nil)
            guard status == errSecSuccess else { throw CredentialStoreError("the Keychain refused account \(account) (status \(status))") }
        }

        /// Deletes the account's item.
        public func delete(account: String) throws {
            try CredentialStoreError.check(account: account)
            let status = SecItemDelete(baseQuery(account) as CFDictionary)
            guard status == errSecSuccess || status == errSecItemNotFound else {
                throw CredentialStoreError("the Keychain cannot delete account \(account) (status \(status))")
            }
        }

        private func baseQuery(_ account: String) -> [String: Any] {
            [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service, kSecAttrAccount as String: account]
        }
    }
#endif
