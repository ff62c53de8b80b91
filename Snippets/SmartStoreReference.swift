// The examples in SmartStore's doc comments (the symbol reference).
import Foundation
import SmartStore

#if canImport(Combine)
    import Combine
#else
    import OpenCombine
#endif

func show(_ rows: [JSONValue]) { print(rows) }
func show(_ rows: [[String?]]) { print(rows) }

func opening() throws {
    // snippet.smartStore
    let store = try SmartStore(path: "/tmp/app/store.sqlite")
    try store.registerSoup("accounts", indexSpecs: [IndexSpec("Id", .string), IndexSpec("Name", .string)])
    let saved = try store.upsert(["Id": "001A", "Name": "Acme"], in: "accounts", externalIdPath: "Id")
    let rows = try store.query(.smart("select {accounts:Name} from {accounts}", pageSize: 10))
    // snippet.end
    print(saved, rows)
}

func keys(path: String, other: String, keyBytes: [UInt8], root: URL) throws {
    // snippet.storeKey
    let store = try SmartStore(path: path, key: .passphrase("correct horse battery staple"))
    let fast = try SmartStore(path: other, key: try .raw(keyBytes))   // 32 bytes, no key derivation
    // snippet.end
    print(store, fast)
    // snippet.keyProvider
    let stores = StoreDirectory(root: root, keyProvider: EnvironmentStoreKeyProvider(variable: "MSYNC_STORE_KEY"))
    // snippet.end
    print(stores)
}

func directory(appSupport: URL, keyFile: URL) throws {
    // snippet.storeDirectory
    let stores = StoreDirectory(root: appSupport, keyProvider: FileStoreKeyProvider(file: keyFile))
    let store = try stores.userStore(user: "005xx000001", named: StoreDirectory.defaultStoreName)
    // snippet.end
    print(store)
}

func schema(store: SmartStore) throws {
    // snippet.indexSpec
    try store.registerSoup("accounts", indexSpecs: [
        IndexSpec("Id", .string),
        IndexSpec("Name", .fullText),
        IndexSpec("__local__", .string),
    ])
    // snippet.end
}

func transaction(store: SmartStore) throws {
    // snippet.transaction
    try store.inTransaction { tx in
        let order = try tx.create([["Name": "Order 1"]], in: "orders")[0]
        _ = try tx.upsert([["Id": "001…", "LastOrder": order["_soupEntryId"] ?? nil]], in: "accounts", externalIdPath: "Id")
    }
    // snippet.end
}

func keyValue(appSupport: URL, key: StoreKey, image: [UInt8]) throws {
    // snippet.keyValue
    let cache = try KeyValueEncryptedFileStore(parentDirectory: appSupport, name: "images", key: key)
    try cache.write(Data(image), forKey: "001xx-logo")
    let png = try cache.read(forKey: "001xx-logo")
    // snippet.end
    print(png ?? Data())
}

func specs() throws {
    // snippet.querySpec
    let spec = QuerySpec.range(soup: "employees", path: "lastName", begin: "Bond", end: "Smith",
                               orderPath: "lastName", pageSize: 10)
    let sql = spec.smartSql
    // SELECT {employees:_soup} FROM {employees} WHERE {employees:lastName} >= ? AND {employees:lastName} <= ? ORDER BY {employees:lastName} ASC
    // snippet.end
    print(sql)
}

func reading(store: SmartStore) async throws {
    // snippet.observe
    for try await rows in store.observe(.smart("select {accounts:Name} from {accounts}", pageSize: 100)) {
        show(rows)
    }
    // snippet.end
    // snippet.cursor
    var cursor = try StoreCursor(store: store, querySpec: .all(soup: "accounts", orderPath: "Name", pageSize: 50))
    show(cursor.currentPageOrderedEntries)
    try cursor.moveToPage(cursor.currentPageIndex + 1)
    // snippet.end
}

final class AccountsModel {
    let store: SmartStore
    var cancellable: AnyCancellable?

    init(store: SmartStore) {
        self.store = store
    }

    func load() {
        // snippet.publisher
        cancellable = store.publisher(for: "select {Account:Name} from {Account}", pageSize: 1_000)
            .receive(on: RunLoop.main)
            .sink(receiveCompletion: { _ in }, receiveValue: { rows in show(rows) })
        // snippet.end
    }

    func observe() {
        // snippet.observePublisher
        cancellable = store.observePublisher(smartSql: "select {accounts:Name} from {accounts}", pageSize: 100)
            .receive(on: RunLoop.main)
            .sink(receiveCompletion: { _ in }, receiveValue: { rows in show(rows) })
        // snippet.end
    }
}
