/// What a Keychain call failed with (``GenericPassword``). Off Apple platforms nothing throws it.
package enum KeychainError: Error, Sendable, Equatable {
    /// The item exists already (an add).
    case duplicateItem
    /// The app (or extension) is not entitled to this keychain access group
    /// (`errSecMissingEntitlement`): the group is missing from its `keychain-access-groups`
    /// entitlement, or its team prefix is wrong.
    case accessGroupNotEntitled(String)
    /// Any other failure: the operation and the Security framework's status code.
    case failed(operation: String, status: Int32)

    /// The failure in a sentence, naming `what` the item holds.
    package func message(_ what: String) -> String {
        switch self {
        case .duplicateItem: "the Keychain already holds \(what)"
        case .accessGroupNotEntitled(let group):
            "the app is not entitled to keychain access group \(group) (\(what)): add it to the keychain-access-groups "
                + "entitlement of the app and of each extension, with the team prefix"
        case .failed(let operation, let status): "the Keychain could not \(operation) \(what) (status \(status))"
        }
    }
}
