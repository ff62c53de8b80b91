#if canImport(Security)
    import Crypto
    import Foundation
    import Keychain

    /// A random raw key kept in the Keychain (a generic password readable after the first unlock,
    /// on this device only), made on first use: the Apple platforms' provider, as the SDK keeps
    /// its store key in the Keychain.
    ///
    /// On macOS the item goes to the data-protection keychain, as on iOS; a process without a
    /// keychain entitlement (a command-line tool) falls back to the file-based one, unless an
    /// access group is named: a group the app is not entitled to is an error, never a silent
    /// move to a keychain where its extensions cannot find the key.
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
        /// - Throws: ``SmartStoreError/keychainAccessGroupNotEntitled(_:)`` when the app is not
        ///   entitled to ``accessGroup``; ``SmartStoreError/invalidKey(_:)`` with the Keychain's
        ///   status when it fails otherwise.
        public func key(forStore name: String, user: String?) throws -> StoreKey? {
            let bytes: [UInt8]
            do {
                bytes = try readOrAdd(GenericPassword(service: service, account: account, accessGroup: accessGroup))
            } catch {
                if case .accessGroupNotEntitled(let group) = error { throw SmartStoreError.keychainAccessGroupNotEntitled(group) }
                throw SmartStoreError.invalidKey(error.message("the store key"))
            }
            return try StoreKey.raw(bytes)
        }

        /// The item's bytes, made when there is none.
        private func readOrAdd(_ item: GenericPassword) throws(KeychainError) -> [UInt8] {
            if let existing = try item.read() { return Array(existing) }
            let bytes = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
            do {
                try item.add(Data(bytes))
                return bytes
            } catch {
                guard error == .duplicateItem else { throw error }
                // Another thread or process made it first.
                guard let existing = try item.read() else { throw .failed(operation: "read", status: 0) }
                return Array(existing)
            }
        }
    }
#endif
