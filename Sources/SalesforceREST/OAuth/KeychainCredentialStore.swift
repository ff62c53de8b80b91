#if canImport(Security)
    import Foundation
    import Security

    /// Credentials in the Keychain: one generic password per account (its JSON), readable after
    /// the first unlock, on this device only — where the SDK keeps its OAuth tokens.
    ///
    /// On macOS the items go to the data-protection keychain, as on iOS (the file-based one ties
    /// an item to the binary that made it and prompts when another reads it); a process without
    /// a keychain entitlement (a command-line tool) falls back to the file-based one.
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
        public func load(account: String) throws -> OAuthCredentials? {
            try CredentialStoreError.check(account: account)
            var query = baseQuery(account)
            query[kSecReturnData as String] = true
            query[kSecMatchLimit as String] = kSecMatchLimitOne
            var item: CFTypeRef?
            let status = KeychainAccess.run(query) { SecItemCopyMatching($0 as CFDictionary, &item) }
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
            let update = KeychainAccess.run(baseQuery(account)) {
                SecItemUpdate($0 as CFDictionary, [kSecValueData as String: data] as CFDictionary)
            }
            if update == errSecSuccess { return }
            guard update == errSecItemNotFound else {
                throw CredentialStoreError("the Keychain refused account \(account) (status \(update))")
            }
            var attributes = baseQuery(account)
            attributes[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            attributes[kSecValueData as String] = data
            let status = KeychainAccess.run(attributes) { SecItemAdd($0 as CFDictionary, nil) }
            guard status == errSecSuccess else { throw CredentialStoreError("the Keychain refused account \(account) (status \(status))") }
        }

        /// Deletes the account's item.
        public func delete(account: String) throws {
            try CredentialStoreError.check(account: account)
            let status = KeychainAccess.run(baseQuery(account)) { SecItemDelete($0 as CFDictionary) }
            guard status == errSecSuccess || status == errSecItemNotFound else {
                throw CredentialStoreError("the Keychain cannot delete account \(account) (status \(status))")
            }
        }

        private func baseQuery(_ account: String) -> [String: Any] {
            var query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service, kSecAttrAccount as String: account,
            ]
            if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
            return query
        }
    }

    /// Keychain calls on the data-protection keychain on macOS too (where it is not the
    /// default), falling back to the file-based one for a process that has no keychain
    /// entitlement (`errSecMissingEntitlement`: an unsigned command-line tool).
    package enum KeychainAccess {
        package static func run(_ query: [String: Any], _ call: ([String: Any]) -> OSStatus) -> OSStatus {
            #if os(macOS)
                var modern = query
                modern[kSecUseDataProtectionKeychain as String] = true
                let status = call(modern)
                guard status == errSecMissingEntitlement else { return status }
            #endif
            return call(query)
        }
    }
#endif
