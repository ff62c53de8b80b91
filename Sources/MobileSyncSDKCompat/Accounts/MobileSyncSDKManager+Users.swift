import Foundation
import MobileSync
import SmartStore

/// Signing users in and out, and switching between them.
extension MobileSyncSDKManager {
    /// Makes `account` the current user, signing it in (``userAccounts``) if it is not yet; nil
    /// leaves no current user, the others staying signed in.
    ///
    /// When the current user changes, the sync managers handed out for the previous one are
    /// stopped — this waits for their running syncs to reach their next page or batch, and
    /// those end STOPPED (`SyncManager/restart(restartStoppedSyncs:onUpdate:)` resumes them
    /// later) — and then retired, with the global stores' managers, which talk with the previous
    /// user's client; the next ``syncManager(storeNamed:)`` or ``globalSyncManager(storeNamed:)``
    /// makes a new one (until then, the stopping manager is the store's, and refuses new syncs).
    /// The previous user stays signed in, with their stores open, and a new session begins (the
    /// default configs apply again). Managers of other signed-in users
    /// (``syncManager(storeNamed:for:)``) keep running. Setting the same user again (org, user
    /// and community) only replaces the account, for example its token provider; managers
    /// handed out already keep their client.
    public func setCurrentUser(_ account: UserAccount?) async throws {
        try await switchNow(to: account)?.value
    }

    /// Makes `account` current at once, as ``setCurrentUser(_:)`` does, and returns the task
    /// that stops and retires the previous user's managers (nil when the user did not change).
    func switchNow(to account: UserAccount?) -> Task<Void, any Error>? {
        let ended: (user: UserAccount, managers: [SyncManager])? = state.withLock { state in
            if let account {
                if let index = state.accounts.firstIndex(where: { $0.storeKey == account.storeKey }) {
                    state.accounts[index] = account
                } else {
                    state.accounts.append(account)
                }
            }
            defer { state.user = account }
            guard let previous = state.user, previous.storeKey != account?.storeKey else {
                if state.user == nil { state.configsApplied = [] }
                return nil
            }
            state.configsApplied = []
            return (previous, Self.takeManagers(of: previous.storeKey, globals: true, from: &state))
        }
        guard let ended else { return nil }
        // The previous user stays signed in: their stores stay open (an app may hold them).
        return Task { try await self.stopAndRetire(ended.managers, closingStoresOf: nil) }
    }

    /// Logs a user out (the current one when `account` is nil) without touching the others:
    /// their sync managers are stopped (running syncs end STOPPED) and retired, their stores
    /// closed, and they leave ``userAccounts``. Logging out the current user leaves no current
    /// user, and retires the global stores' managers too.
    ///
    /// The SDK deletes a user's stores when the user logs out; here the files (SmartStores and
    /// key-value stores) stay unless `removingStores` is true, because they may hold edits not
    /// synced yet (see the article <doc:PortingFromTheMobileSDK>). ``UserAccountManager/logout(_:)``
    /// removes them, as the SDK does.
    public func logout(_ account: UserAccount? = nil, removingStores: Bool = false) async throws {
        try await signOutNow(account, removingStores: removingStores)?.value
    }

    /// Signs `account` (nil: the current user) out at once, as ``logout(_:removingStores:)``
    /// does, and returns the task that stops its managers, closes its stores and, when
    /// `removingStores`, removes them; nil when there was no such user.
    func signOutNow(_ account: UserAccount?, removingStores: Bool = true) -> Task<Void, any Error>? {
        let ended: (user: UserAccount, managers: [SyncManager])? = state.withLock { state in
            guard let user = account ?? state.user else { return nil }
            state.accounts.removeAll { $0.storeKey == user.storeKey }
            let wasCurrent = state.user?.storeKey == user.storeKey
            if wasCurrent {
                state.user = nil
                state.configsApplied = []
            }
            return (user, Self.takeManagers(of: user.storeKey, globals: wasCurrent, from: &state))
        }
        guard let ended else { return nil }
        return Task {
            try await self.stopAndRetire(ended.managers, closingStoresOf: ended.user)
            if removingStores {
                let stores = self.state.withLock { $0.stores }
                try stores.removeAllUserStores(user: ended.user.storeKey)
                try stores.removeKeyValueStores(user: ended.user.storeKey, named: nil)
            }
        }
    }

    /// Removes the managers handed out for `owner` (and the global ones when `globals`) from
    /// the session and returns them.
    private static func takeManagers(of owner: String, globals: Bool, from state: inout State) -> [SyncManager] {
        let taken = state.managers.filter { $0.value.global ? globals : $0.value.owner == owner }
        for key in taken.keys { state.managers[key] = nil }
        return taken.values.map(\.manager)
    }

    /// Stops `managers` and waits until every one has stopped (the wait is not cut short by the
    /// caller's cancellation: a manager left running would sync for a user who is gone), then
    /// retires them, so that no second manager of their stores exists meanwhile; then, when
    /// `closingStoresOf` is set, closes that user's stores.
    private func stopAndRetire(_ managers: [SyncManager], closingStoresOf user: UserAccount?) async throws {
        await Task {
            for manager in managers { manager.stop() }
            for manager in managers {
                while !manager.isStopped { try? await Task.sleep(for: .milliseconds(20)) }
                SyncManager.retire(manager)
            }
        }.value
        if let user { try state.withLock { $0.stores }.closeUserStores(user: user.storeKey) }
    }
}
