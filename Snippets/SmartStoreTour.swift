import SmartStore

let store = try SmartStore(path: "app/store.sqlite")
try store.registerSoup("accounts", indexSpecs: [IndexSpec("Id", .string), IndexSpec("Name", .fullText), IndexSpec("__local__", .json1)])
try store.upsert(["Id": "001A", "Name": "Acme", "__local__": false], in: "accounts", externalIdPath: "Id")
let clean = try store.query(.smart("select {accounts:Name} from {accounts} where {accounts:__local__} = 0", pageSize: 10))
let found = try store.query(.match(soup: "accounts", path: "Name", key: "acme", pageSize: 10))
print(clean, found)
