#if canImport(Security)
    import Foundation
    import Security

    /// A random raw key kept in the Keychain (a generic password readable after the first unlock,
    /// on this device only), made on first use: the Apple platforms' provider, as the SDK keeps
    /// its store key in the Keychain.
    public struct KeychainStoreKeyProvider: StoreKeyProvider {
        /// The Keychain item's service.
        public let service: String
        /// The Keychain item's account.
        public let account: String

        /// Keeps the key in the generic password of `service` and `account`.
        public init(service: String = "msync.smartstore", account: String = "store-key") {
            self.service = service
            self.account = account
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
            let attributes: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrService as String: service,
                kSecAttrAccount as String: account,
                kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
                kSecValueData as String: Data(bytes),
            ]
            let status = SecItemAdd(attributes as CFDictionary, nil)
            if status == errSecDuplicateItem, let existing = try read() {
                // Another thread or process made it first.
                return try StoreKey.raw(existing)
            }
            guard status == errSecSuccess else { throw SmartStoreError.invalidKey("The Keychain refused the store key (status \(status))") }
            return try StoreKey.raw(bytes)
        }

        private func read() throws -> [UInt8]? {
            let query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrService as String: service,
                kSecAttrAccount as String: account,
                kSecReturnData as String: true,
                kSecMatchLimit as String: kSecMatchLimitOne,
            ]
            var item: CFTypeRef?
            let status = SecItemCopyMatching(query as CFDictionary, &item)
            if status == errSecItemNotFound { return nil }
            guard status == errSecSuccess, let data = item as? Data else {
                throw SmartStoreError.invalidKey("The Keychain cannot read the store key (status \(status))")
            }
            return Array(data)
        }
    }
#endif
