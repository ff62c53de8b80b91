// snippet.hide
// The examples of SmartStore's "Getting started" article.
import SmartStore

func show(_ rows: [JSONValue]) { print(rows) }

func example(store: SmartStore) throws {
    // snippet.show
    // snippet.register
    try store.registerSoup("contacts", indexSpecs: [
        IndexSpec("Id", .string),          // lookups and upserts by server id
        IndexSpec("LastName", .string),
        IndexSpec("Age", .integer),
        IndexSpec("Notes", .fullText),     // MATCH queries
        IndexSpec("__local__", .json1),    // dirty records, for Mobile Sync
    ])
    // snippet.end
    // snippet.upsert
    let saved = try store.upsert(["Id": "003A", "LastName": "Ng", "Age": 41], in: "contacts", externalIdPath: "Id")
    try store.delete([saved["_soupEntryId"]?.int64Value ?? -1], from: "contacts")
    // snippet.end
    // snippet.query
    let adults = try store.query(.range(soup: "contacts", path: "Age", begin: 18, end: nil, pageSize: 50))
    let named = try store.query(.smart("select {contacts:LastName}, count(*) from {contacts} group by {contacts:LastName}",
                                       pageSize: 100))
    let total = try store.count(.match(soup: "contacts", path: "Notes", key: "renewal", pageSize: 1))
    // snippet.end
    // snippet.hide
    print(adults, named, total)
}

func live(store: SmartStore) async throws {
    // snippet.show
    // snippet.observe
    for try await rows in store.observe(smartSql: "select {contacts:LastName} from {contacts}", pageSize: 100) {
        show(rows)
    }
    // snippet.end
    // snippet.hide
}

struct Screen {
    let store: SmartStore
    // snippet.show
    // snippet.async
    func refresh() async throws -> [JSONValue] {
        try await store.query(.all(soup: "contacts", pageSize: 100))
    }
    // snippet.end
    // snippet.hide
}
