public import Foundation

/// The SDK's `UserAccountManager` for an offline app: the current user, the signed-in accounts,
/// switching between them and logging out, with the SDK's notifications, over
/// ``MobileSyncSDKManager/shared``. Login itself is SalesforceREST's `OAuthClient`: make a
/// ``UserAccount`` from its credentials and switch to it.
///
/// Its calls return at once, as the SDK's do. A switch stops the previous user's sync managers
/// in the background (their running syncs end STOPPED); a logout removes the user's stores, as
/// the SDK does, once their managers have stopped, and then posts ``didLogoutUser``. Code that
/// can wait uses ``MobileSyncSDKManager/setCurrentUser(_:)`` and
/// ``MobileSyncSDKManager/logout(_:removingStores:)`` instead, which return when that is done
/// (and keep the stores unless asked).
///
/// <!-- snippet: Snippets/MobileSyncSDKCompatReference.swift#userAccountManager -->
/// ```swift
/// let accounts = UserAccountManager.shared
/// accounts.switchToUserAccount(account)
/// let store = SmartStore.shared(withName: SmartStore.defaultStoreName)
/// observer = NotificationCenter.default.addObserver(forName: UserAccountManager.didLogoutUser, object: nil, queue: nil) { _ in
///     print("signed out")
/// }
/// accounts.logout() // the current user: stores removed, as in the SDK
/// ```
public final class UserAccountManager: Sendable {
    /// The app's account manager, over ``MobileSyncSDKManager/shared``.
    public static let shared = UserAccountManager(sdk: .shared)

    /// Posted before a user logs out; `userInfo[userInfoAccountKey]` is the ``UserAccount``.
    public static let willLogoutUser = Notification.Name("SFNotificationUserWillLogout")
    /// Posted once a user has logged out, their stores removed; `userInfo[userInfoAccountKey]`
    /// is the ``UserAccount``, and `userInfo[userInfoErrorKey]` the error when the removal failed.
    public static let didLogoutUser = Notification.Name("SFNotificationUserDidLogout")
    /// Posted before the current user changes; `userInfo[userInfoFromUserKey]` and
    /// `userInfo[userInfoToUserKey]` are the accounts (`NSNull` for none).
    public static let willSwitchUser = Notification.Name("SFNotificationUserWillSwitch")
    /// Posted once the current user has changed (the previous user's managers may still be
    /// stopping); the same `userInfo` as ``willSwitchUser``.
    public static let didSwitchUser = Notification.Name("SFNotificationUserDidSwitch")
    /// The `userInfo` key of the account a logout notification is about.
    public static let userInfoAccountKey = "account"
    /// The `userInfo` key of the previous current user in a switch notification.
    public static let userInfoFromUserKey = "fromUser"
    /// The `userInfo` key of the new current user in a switch notification.
    public static let userInfoToUserKey = "toUser"
    /// The `userInfo` key of the error that kept a logout from removing the user's stores.
    public static let userInfoErrorKey = "error"

    private let sdk: MobileSyncSDKManager

    /// An account manager over `sdk`.
    public init(sdk: MobileSyncSDKManager) {
        self.sdk = sdk
    }

    /// The current user, or nil; setting it switches users (``switchToUserAccount(_:)``).
    public var currentUserAccount: UserAccount? {
        get { sdk.currentUser }
        set { switchToUserAccount(newValue) }
    }

    /// The signed-in users, in the order they signed in (optional as the SDK's; never nil here).
    public func userAccounts() -> [UserAccount]? { sdk.userAccounts }

    /// Makes `account` the current user (signing it in if it is not yet), posting
    /// ``willSwitchUser`` before and ``didSwitchUser`` after; nil leaves no current user. The
    /// previous user stays signed in; their sync managers stop in the background.
    public func switchToUserAccount(_ account: UserAccount?) {
        let previous = sdk.currentUser
        let info: [AnyHashable: Any] = [
            Self.userInfoFromUserKey: previous.map { $0 as Any } ?? NSNull(),
            Self.userInfoToUserKey: account.map { $0 as Any } ?? NSNull(),
        ]
        NotificationCenter.default.post(name: Self.willSwitchUser, object: self, userInfo: info)
        _ = sdk.switchNow(to: account)
        NotificationCenter.default.post(name: Self.didSwitchUser, object: self, userInfo: info)
    }

    /// Logs the current user out (see ``logout(_:)``); nothing without a current user.
    public func logout() {
        guard let user = sdk.currentUser else { return }
        logout(user)
    }

    /// Logs `account` out as the SDK does: ``willLogoutUser`` at once, then in the background
    /// their sync managers are stopped, their stores and key-value stores removed (with any edit
    /// not synced yet), and ``didLogoutUser`` is posted. The account leaves ``userAccounts()``
    /// at once.
    public func logout(_ account: UserAccount) {
        let info: [AnyHashable: Any] = [Self.userInfoAccountKey: account]
        NotificationCenter.default.post(name: Self.willLogoutUser, object: self, userInfo: info)
        let ended = sdk.signOutNow(account)
        Task {
            var done = info
            do {
                try await ended?.value
            } catch {
                done[Self.userInfoErrorKey] = error
            }
            NotificationCenter.default.post(name: Self.didLogoutUser, object: self, userInfo: done)
        }
    }
}
