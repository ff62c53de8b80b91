#if canImport(Security)
    package import Foundation
    import Security

    /// One generic password in the Keychain, readable after the first unlock, on this device
    /// only: the one surface through which SmartStore (its store keys) and SalesforceREST (its
    /// OAuth credentials) reach the Security framework.
    ///
    /// Items go to the data-protection keychain on macOS too, as on iOS: the file-based one ties
    /// an item to the binary that made it and prompts when another reads it. A process without a
    /// keychain entitlement (an unsigned command-line tool) falls back to the file-based one, but
    /// only when no access group is named: an app and its extensions share a store key through
    /// their access group, and a refused group must be an error, never a silent move to a
    /// keychain where the extension cannot find the key.
    package struct GenericPassword: Sendable {
        /// The item's service.
        package let service: String
        /// The item's account.
        package let account: String
        /// The keychain access group the item is shared in; nil: the app's default group.
        package let accessGroup: String?

        /// The password of `service` and `account`, in `accessGroup` when given.
        package init(service: String, account: String, accessGroup: String?) {
            self.service = service
            self.account = account
            self.accessGroup = accessGroup
        }

        /// The item's data, or nil when there is none.
        package func read() throws(KeychainError) -> Data? {
            var query = baseQuery
            query[kSecReturnData as String] = true
            query[kSecMatchLimit as String] = kSecMatchLimitOne
            var item: CFTypeRef?
            let status = run(query) { SecItemCopyMatching($0 as CFDictionary, &item) }
            if status == errSecItemNotFound { return nil }
            try check(status, "read")
            guard let data = item as? Data else { throw .failed(operation: "read", status: status) }
            return data
        }

        /// Adds the item; throws ``KeychainError/duplicateItem`` when it exists.
        package func add(_ data: Data) throws(KeychainError) {
            var attributes = baseQuery
            attributes[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            attributes[kSecValueData as String] = data
            let status = run(attributes) { SecItemAdd($0 as CFDictionary, nil) }
            if status == errSecDuplicateItem { throw .duplicateItem }
            try check(status, "add")
        }

        /// Replaces the item's data; false when there is no item.
        package func update(_ data: Data) throws(KeychainError) -> Bool {
            let status = run(baseQuery) { SecItemUpdate($0 as CFDictionary, [kSecValueData as String: data] as CFDictionary) }
            if status == errSecItemNotFound { return false }
            try check(status, "update")
            return true
        }

        /// Deletes the item (nothing when there is none).
        package func delete() throws(KeychainError) {
            let status = run(baseQuery) { SecItemDelete($0 as CFDictionary) }
            if status == errSecItemNotFound { return }
            try check(status, "delete")
        }

        private var baseQuery: [String: Any] {
            var query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service, kSecAttrAccount as String: account,
            ]
            if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
            return query
        }

        private func check(_ status: OSStatus, _ operation: String) throws(KeychainError) {
            if status == errSecSuccess { return }
            if status == errSecMissingEntitlement, let accessGroup { throw .accessGroupNotEntitled(accessGroup) }
            throw .failed(operation: operation, status: status)
        }

        /// The call on the data-protection keychain (on macOS too); on macOS, without an access
        /// group, once more on the file-based one when the process has no keychain entitlement.
        private func run(_ query: [String: Any], _ call: ([String: Any]) -> OSStatus) -> OSStatus {
            #if os(macOS)
                var modern = query
                modern[kSecUseDataProtectionKeychain as String] = true
                let status = call(modern)
                guard status == errSecMissingEntitlement, accessGroup == nil else { return status }
            #endif
            return call(query)
        }
    }
#endif
