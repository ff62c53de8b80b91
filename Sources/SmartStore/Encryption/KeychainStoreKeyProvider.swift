#if canImport(Security)
    import Foundation
    import Security

    /// A random raw key kept in the Keychain (a generic password readable after the first unlock,
    /// on this device only), made on first use: the Apple platforms' provider, as the SDK keeps
    /// its store key in the Keychain.
    ///
    /// On macOS the item goes to the data-protection keychain, as on iOS; a process without a
    /// keychain entitlement (a command-line tool) falls back to the file-based one.
    public struct KeychainStoreKeyProvider: StoreKeyProvider {
        /// The Keychain item's service.
        public let service: String
        /// The Keychain item's account.
        public let account: String
        /// The keychain access group the key is shared in (an app and its extensions that share
        /// a store name the same one); nil: the app's default group.
        public let accessGroup: String?

        /// Keeps the key in the generic password of `service` and `account`, in `accessGroup`
        /// when given.
        public init(service: String = "msync.smartstore", account: String = "store-key", accessGroup: String? = nil) {
            self.service = service
            self.account = account
            self.accessGroup = accessGroup
        }

        /// The key in the Keychain, made (random, 32 bytes) when there is none yet.
        ///
        /// - Throws: ``SmartStoreError/invalidKey(_:)`` with the Keychain's status when it fails.
        public func key(forStore name: String, user: String?) throws -> StoreKey? {
            if let existing = try read() { return try StoreKey.raw(existing) }
            var bytes = [UInt8](repeating: 0, count: 32)
            guard SecRandomCopyBytes(kSecRandomDefault, bytes.count, &bytes) == errSecSuccess else {
                throw SmartStoreError.invalidKey("No random bytes for a store key")
            }
            var attributes = baseQuery
            attributes[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            attributes[kSecValueData as String] = Data(bytes)
            let status = Self.run(attributes) { SecItemAdd($0 as CFDictionary, nil) }
            if status == errSecDuplicateItem, let existing = try read() {
                // Another thread or process made it first.
                return try StoreKey.raw(existing)
            }
            guard status == errSecSuccess else { throw SmartStoreError.invalidKey("The Keychain refused the store key (status \(status))") }
            return try StoreKey.raw(bytes)
        }

        private func read() throws -> [UInt8]? {
            var query = baseQuery
            query[kSecReturnData as String] = true
            query[kSecMatchLimit as String] = kSecMatchLimitOne
            var item: CFTypeRef?
            let status = Self.run(query) { SecItemCopyMatching($0 as CFDictionary, &item) }
            if status == errSecItemNotFound { return nil }
            guard status == errSecSuccess, let data = item as? Data else {
                throw SmartStoreError.invalidKey("The Keychain cannot read the store key (status \(status))")
            }
            return Array(data)
        }

        private var baseQuery: [String: Any] {
            var query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service, kSecAttrAccount as String: account,
            ]
            if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
            return query
        }

        /// The call on the data-protection keychain on macOS too, else (no keychain entitlement)
        /// on the file-based one.
        private static func run(_ query: [String: Any], _ call: ([String: Any]) -> OSStatus) -> OSStatus {
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
