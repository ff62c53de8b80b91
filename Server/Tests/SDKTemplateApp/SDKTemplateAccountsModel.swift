import Foundation
import MobileSync
import MobileSyncSDKCompat
import SmartStore

#if canImport(Combine)
    import Combine
#endif

/// An accounts list written as the SDK's iOS Swift template writes its model: each SDK call
/// (`SmartStore.shared(withName:)`, `SyncManager.sharedInstance(store:)`, the two
/// `publisher(for:)`, `.receive(on: RunLoop.main)`, a row cast to `[String?]`) spelled as the
/// template spells it, MobileSyncSDKCompat imported beside the SDK's two modules. Only the Combine import is guarded: on Linux, MobileSync and SmartStore
/// re-export OpenCombine and its schedulers. The template's force unwrap and force cast stay as it
/// writes them (the point is that its code compiles unchanged), hence the lint exception.
// swift-format-ignore: NeverForceUnwrap
final class SDKTemplateAccountsModel: ObservableObject {
    struct Account: Hashable, Identifiable {
        let id: String
        let name: String
        let industry: String
    }

    @Published var accounts: [Account] = []

    var store: SmartStore?
    var syncManager: SyncManager?
    private var syncTaskCancellable: AnyCancellable?
    private var storeTaskCancellable: AnyCancellable?

    init() {
        store = SmartStore.shared(withName: SmartStore.defaultStoreName)
        syncManager = SyncManager.sharedInstance(store: store!)
    }

    func fetchAccounts() {
        syncTaskCancellable = syncManager?.publisher(for: "syncDownAccounts")
            .receive(on: RunLoop.main)
            .sink(receiveCompletion: { _ in }, receiveValue: { _ in self.loadFromSmartStore() })
        loadFromSmartStore()
    }

    private func loadFromSmartStore() {
        storeTaskCancellable = store?.publisher(for: "select {Account:Name}, {Account:Industry}, {Account:Id} from {Account}")
            .receive(on: RunLoop.main)
            .tryMap { rows in
                rows.map { row -> Account in
                    let cells = row as! [String?]
                    return Account(id: cells[2] ?? "", name: cells[0] ?? "", industry: cells[1] ?? "Unknown Industry")
                }
            }
            .catch { _ in Just([Account]()) }
            .assign(to: \SDKTemplateAccountsModel.accounts, on: self)
    }
}
