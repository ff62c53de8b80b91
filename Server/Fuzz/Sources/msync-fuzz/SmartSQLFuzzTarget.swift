import FastJSON
import SmartStore

/// The Smart SQL translator, and SQLite running what it translates, on a store with two soups.
struct SmartSQLFuzzTarget: FuzzTarget {
    let store: SmartStore

    init() {
        do {
            let store = try SmartStore()
            try store.registerSoup(
                "accounts",
                indexSpecs: [
                    IndexSpec("Id", .string), IndexSpec("Name", .fullText), IndexSpec("Size", .integer),
                    IndexSpec("Rate", .floating), IndexSpec("Info", .json1),
                ])
            try store.registerSoup("contacts", indexSpecs: [IndexSpec("AccountId", .string), IndexSpec("LastName", .string)])
            _ = try store.create([["Id": "001A", "Name": "Acme", "Size": 10, "Rate": 1.5, "Info": ["city": "Paris"]]], in: "accounts")
            _ = try store.create([["AccountId": "001A", "LastName": "Smith"]], in: "contacts")
            self.store = store
        } catch {
            fatalError("fuzz store setup failed: \(error)")
        }
    }

    func run(_ data: [UInt8]) {
        let text = String(decoding: data, as: UTF8.self)
        _ = try? store.convertSmartSql(text)
        _ = try? store.query(.smart(text, pageSize: 5))
    }
}
