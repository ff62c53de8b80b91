// The examples in MobileSyncSDKCompat's doc comments (the symbol reference).
import Foundation
import MobileSync
import MobileSyncSDKCompat
import SmartStore

#if canImport(Combine)
    import Combine
#else
    import OpenCombine
#endif

func show(_ rows: [[String?]]) { print(rows) }

func queryingTheSDKWay(store: SmartStore) throws {
    // snippet.sdkJSON
    let fromSDK = try QuerySpec(sdkJSON: ["queryType": "range", "indexPath": "Name", "beginKey": "A",
                                          "order": "descending", "pageSize": 25], soupName: "accounts")
    let queryType = fromSDK.sdkJSON["queryType"]  // "range"
    // snippet.end
    print(queryType ?? nil)
    // snippet.sdkQuery
    if case .success(let rows) = store.query("select {Account:Name}, {Account:Industry} from {Account}") {
        let names = rows.map { ($0 as? [String?])?.first ?? nil }
        // snippet.hide
        print(names)
        // snippet.show
    }
    // snippet.end
}

final class SDKAccountsModel {
    let store: SmartStore
    var cancellable: AnyCancellable?

    init(store: SmartStore) {
        self.store = store
    }

    func loadTheSDKWay() {
        // snippet.sdkPublisher
        cancellable = store.publisher(for: "select {Account:Name} from {Account}")
            .receive(on: RunLoop.main)
            .sink(receiveCompletion: { _ in }, receiveValue: { rows in show(rows as? [[String?]] ?? []) })
        // snippet.end
    }
}

final class AccountsListModel {
    let manager: SyncManager
    var cancellable: AnyCancellable?

    init(manager: SyncManager) {
        self.manager = manager
    }

    func loadFromSmartStore() {}

    func sync() {
        // snippet.publisher
        cancellable = manager.publisher(for: "syncDownAccounts")
            .receive(on: RunLoop.main)
            .sink(receiveCompletion: { _ in }, receiveValue: { _ in self.loadFromSmartStore() })
        // snippet.end
    }
}
