import Foundation
import MobileSync
public import MobileSyncSDKCompat
import SmartStore

#if canImport(Combine)
    public import Combine
#else
    public import OpenCombine
#endif

/// An account as the list shows it.
public struct Account: Hashable, Identifiable, Sendable {
    /// The record's id.
    public let id: String
    /// The account's name.
    public let name: String
    /// The account's industry ("" when it has none).
    public let industry: String
}

/// The accounts list of the Salesforce Mobile SDK's SwiftUI template, ported: the same calls
/// in the same order, without the UI. The template's `.receive(on: RunLoop.main)` is the
/// `scheduler` given here.
///
/// ```swift
/// let model = AccountsListModel(sdk: .shared, scheduler: RunLoop.main)
/// model.fetchAccounts()        // re-runs "syncDownAccounts", then reads the soup
/// // model.accounts is @Published: a SwiftUI List observes it
/// ```
public final class AccountsListModel<S: Scheduler>: ObservableObject {
    /// The accounts in the store, published after each fetch.
    @Published public private(set) var accounts: [Account] = []
    /// The last error of a fetch, nil after a good one.
    @Published public private(set) var lastError: String?

    private let sdk: MobileSyncSDKManager
    private let scheduler: S
    private var syncTaskCancellable: AnyCancellable?
    private var storeTaskCancellable: AnyCancellable?

    /// A model reading the current user's default store through `sdk`, delivering on `scheduler`.
    public init(sdk: MobileSyncSDKManager, scheduler: S) {
        self.sdk = sdk
        self.scheduler = scheduler
    }

    /// The template's start: the store and syncs from the default config files, once per user
    /// session.
    public func setUp() async throws {
        try sdk.setupUserStoreFromDefaultConfig()
        try await sdk.setupUserSyncsFromDefaultConfig()
    }

    /// Re-runs the `syncDownAccounts` sync, then loads the accounts from the store (the
    /// template's `fetchAccounts`).
    public func fetchAccounts() {
        let manager: SyncManager
        do {
            manager = try sdk.syncManager()
        } catch {
            lastError = "\(error)"
            return
        }
        syncTaskCancellable = manager.publisher(for: "syncDownAccounts")
            .receive(on: scheduler)
            .sink(
                receiveCompletion: { [weak self] in self?.note($0) },
                receiveValue: { [weak self] _ in self?.loadFromSmartStore() })
    }

    /// Reads the accounts soup (the template's `loadFromSmartStore`).
    private func loadFromSmartStore() {
        let store: SmartStore
        do {
            store = try sdk.store()
        } catch {
            lastError = "\(error)"
            return
        }
        storeTaskCancellable = store.publisher(
            for: "select {Account:Name}, {Account:Industry}, {Account:Id} from {Account}", pageSize: 10_000
        )
        .receive(on: scheduler)
        .tryMap { rows -> [Account] in
            rows.compactMap { row in
                guard let values = row.arrayValue, values.count == 3, let id = values[2].stringValue else { return nil }
                return Account(id: id, name: values[0].stringValue ?? "", industry: values[1].stringValue ?? "")
            }
        }
        .sink(
            receiveCompletion: { [weak self] in self?.note($0) },
            receiveValue: { [weak self] accounts in
                self?.lastError = nil
                self?.accounts = accounts
            })
    }

    /// Keeps a failed fetch's error for the view.
    private func note<Failure: Error>(_ completion: Subscribers.Completion<Failure>) {
        if case .failure(let error) = completion { lastError = "\(error)" }
    }
}
