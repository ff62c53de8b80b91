import FastJSON
import Foundation
import MobileSync
import NIOConcurrencyHelpers
import SalesforceREST
import SmartStore

/// What the inspector's page asks for, answered as JSON: soups, a page of a Smart SQL query, one
/// entry, the sync states, and the same records as the org has them. Read-only throughout.
final class InspectorData: Sendable {
    /// Rows per page of the query console and of the comparison.
    static let pageSize = 50

    private let path: String
    private let key: StoreKey?
    let org: RestClient?
    /// The store as last opened, with what it was opened against.
    private let opened = NIOLockedValueBox<Opened?>(nil)

    private struct Opened: Sendable {
        let store: SmartStore
        let file: FileState
        let schemaVersion: Int64?
    }

    /// What says the file changed underneath a connection: its log's presence, size and date.
    private struct FileState: Equatable, Sendable {
        var logExists: Bool
        let size: Int64
        let modified: Date?

        init(path: String) {
            let attributes = try? FileManager.default.attributesOfItem(atPath: path)
            logExists = FileManager.default.fileExists(atPath: path + "-wal")
            size = (attributes?[.size] as? NSNumber)?.int64Value ?? -1
            modified = attributes?[.modificationDate] as? Date
        }
    }

    init(path: String, key: StoreKey?, org: RestClient?) {
        self.path = path
        self.key = key
        self.org = org
    }

    /// An answer: an HTTP status and a JSON body.
    struct Answer: Sendable {
        var status: Int
        var body: JSONValue

        static func error(_ status: Int, _ message: String) -> Answer {
            Answer(status: status, body: ["error": .string(message)])
        }
    }

    /// The store, opened again when another process may have changed it underneath: when its
    /// file or log changed (a store opened while no log existed is read as an immutable file,
    /// which must not change under it) or its schema did (the soups the store knows are cached).
    func store() throws -> SmartStore {
        let file = FileState(path: path)
        if let current = opened.withLockedValue({ $0 }), current.file.logExists || current.file == file,
            current.schemaVersion == Self.schemaVersion(of: current.store)
        {
            return current.store
        }
        var seen = file
        let store = try SmartStore(readOnlyAt: path, key: key)
        // A log gone while the store opened may have made it immutable: watch the file then.
        seen.logExists = seen.logExists && FileManager.default.fileExists(atPath: path + "-wal")
        opened.withLockedValue { $0 = Opened(store: store, file: seen, schemaVersion: Self.schemaVersion(of: store)) }
        return store
    }

    private static func schemaVersion(of store: SmartStore) -> Int64? {
        try? store.query(.smart("select schema_version from pragma_schema_version", pageSize: 1)).first?.arrayValue?.first?.int64Value
    }

    /// The answer to `GET /api/<endpoint>` with query parameters `query`.
    func answer(_ endpoint: String, _ query: [String: String]) async -> Answer {
        do {
            switch endpoint {
            case "soups": return try soups()
            case "query": return try await self.query(query["sql"] ?? "", page: Int(query["page"] ?? "0") ?? -1)
            case "record": return try await record(soup: query["soup"] ?? "", id: Int64(query["id"] ?? "") ?? -1)
            case "syncs": return try await syncs()
            case "conflicts": return try await conflicts()
            case "compare": return try await compare(soup: query["soup"] ?? "", page: Int(query["page"] ?? "0") ?? -1)
            default: return .error(404, "No such endpoint: \(endpoint)")
            }
        } catch {
            return .error(400, "\(error)")
        }
    }

    private func soups() throws -> Answer {
        let soups = try SoupsCommand.soups(in: try store()).map { soup -> JSONValue in
            let specs = soup.indexSpecs.map { spec -> JSONValue in ["path": .string(spec.path), "type": .string(spec.type.rawValue)] }
            return ["name": .string(soup.name), "entries": .int(Int64(soup.entries)), "indexSpecs": .array(specs)]
        }
        return Answer(status: 200, body: ["soups": .array(soups), "org": org.map { .string($0.instanceURL.absoluteString) } ?? .null])
    }

    private func query(_ sql: String, page: Int) async throws -> Answer {
        guard page >= 0 else { return .error(400, "page must be a number, 0 or more") }
        guard !sql.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return .error(400, "Write a Smart SQL query first.") }
        let store = try store()
        let spec = QuerySpec.smart(sql, pageSize: Self.pageSize)
        do {
            let rows = try await store.query(spec, pageIndex: page)
            let columns = try store.columnNames(of: spec)
            return Answer(
                status: 200,
                body: [
                    "columns": .array(columns.map(JSONValue.string)),
                    "rows": .array(rows.map { $0.arrayValue.map(JSONValue.array) ?? .array([$0]) }),
                    "page": .int(Int64(page)), "more": .bool(rows.count == Self.pageSize),
                ])
        } catch let error as SmartStoreError {
            return .error(400, error.description)
        }
    }

    private func record(soup: String, id: Int64) async throws -> Answer {
        let store = try store()
        guard try store.hasSoup(soup) else { return .error(404, "No soup named \(soup)") }
        guard let entry = try await store.retrieve([id], from: soup).first else {
            return .error(404, "No entry \(id) in \(soup)")
        }
        var flags: [String: JSONValue] = [:]
        for flag in [LocalFields.local, LocalFields.locallyCreated, LocalFields.locallyUpdated, LocalFields.locallyDeleted] {
            flags[flag] = entry[flag] ?? .null
        }
        var lastError: JSONValue = entry[LocalFields.lastError] ?? .null
        if let text = lastError.stringValue, let parsed = try? JSONValue(parsing: text) { lastError = parsed }
        let conflict = try await SyncManager.conflicts(in: store, soup: soup).first { $0.entryId == id }
        return Answer(
            status: 200,
            body: [
                "soup": .string(soup), "entry": entry,
                "flags": .object(flags),
                "lastError": lastError,
                "conflict": conflict.map(ConflictsCommand.json) ?? .null,
            ])
    }

    private func conflicts() async throws -> Answer {
        let store = try store()
        var rows: [JSONValue] = []
        for soup in try store.soupNames().sorted() where soup != "syncs_soup" {
            rows += try await SyncManager.conflicts(in: store, soup: soup).map(ConflictsCommand.json)
        }
        return Answer(status: 200, body: ["conflicts": .array(rows)])
    }

    private func syncs() async throws -> Answer {
        let smartStore = try store()
        let states = try SyncManager.syncStates(in: smartStore)
        let open = try await SyncsCommand.openConflicts(in: smartStore, of: states)
        let rows = states.map { JSONValue.array(SyncsCommand.row($0, openConflicts: open)) }
        return Answer(status: 200, body: ["columns": .array(SyncsCommand.columns.map(JSONValue.string)), "rows": .array(rows)])
    }
}
