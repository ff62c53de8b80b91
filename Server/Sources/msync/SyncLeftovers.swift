import FastJSON
import Foundation
import MobileSync
import SmartStore

/// What a sync left unsent in its soup, for `msync sync`'s report and exit code: the local
/// records that carry an error after the run (a record the server refused, or one in conflict).
/// For a sync down that found conflicts, the soup's records in conflict (they may include a
/// sync up's: the soup holds one mark per record); the refusals of sync ups are theirs alone.
struct SyncLeftovers {
    /// One record left, with why.
    struct Record {
        var entryId: Int64
        /// The record's server id (nil for a record created here and never sent).
        var id: String?
        /// `conflict` or `failed`.
        var reason: String
        /// The error as a line: `CODE: message` for each of its items.
        var message: String

        /// The record in `msync sync --json`'s `left` list.
        var json: JSONValue {
            ["entryId": .int(entryId), "id": id.map(JSONValue.string) ?? .null, "reason": .string(reason), "error": .string(message)]
        }
    }

    /// The exit code of an `msync sync` that ran, but left records unsent.
    static let exitCode: Int32 = 3

    var records: [Record] = []

    /// The records `state`'s run left in its soup (none when its counts say none).
    static func of(_ state: SyncState, in store: SmartStore) async throws -> SyncLeftovers {
        guard state.failedRecordCount > 0 || state.conflictCount > 0, try store.hasSoup(state.soupName) else { return SyncLeftovers() }
        let idField = state.target["idFieldName"]?.stringValue ?? "Id"
        let ids = try await store.dirtyEntryIds(soup: state.soupName)
        var left = SyncLeftovers()
        for start in stride(from: 0, to: ids.count, by: 500) {
            let slice = Array(ids[start..<min(ids.count, start + 500)])
            for entry in try await store.retrieve(slice, from: state.soupName) {
                guard let text = entry[LocalFields.lastError]?.stringValue, !text.isEmpty, let entryId = entry["_soupEntryId"]?.int64Value
                else { continue }
                let conflict = text.contains("SYNC_CONFLICT")
                if state.kind == .syncDown && !conflict { continue }
                left.records.append(
                    Record(
                        entryId: entryId, id: entry[idField]?.stringValue.flatMap { LocalFields.isLocalId($0) ? nil : $0 },
                        reason: conflict ? "conflict" : "failed", message: message(of: text)))
            }
        }
        return left
    }

    /// `__last_error__` as a line: the SDK stores the server's error list as JSON text.
    static func message(of text: String) -> String {
        guard let value = try? JSONValue(parsing: Array(text.utf8)) else { return text }
        let items = value.arrayValue ?? [value]
        let lines = items.map { item -> String in
            let code = item["errorCode"]?.stringValue ?? item["statusCode"]?.stringValue ?? ""
            let message = item["message"]?.stringValue ?? item.jsonString
            let fields = (item["fields"]?.arrayValue ?? []).compactMap(\.stringValue)
            let named = fields.isEmpty ? "" : " (\(fields.joined(separator: ", ")))"
            return code.isEmpty ? message + named : "\(code): \(message)\(named)"
        }
        return lines.joined(separator: "; ")
    }

    /// The report's lines: a summary, then the first few records with their reasons.
    func lines(sync name: String, store: String) -> [String] {
        guard !records.isEmpty else { return [] }
        let conflicts = records.filter { $0.reason == "conflict" }.count
        let failed = records.count - conflicts
        let counts = [failed > 0 ? "\(failed) failed" : nil, conflicts > 0 ? "\(conflicts) in conflict" : nil].compactMap { $0 }
        var lines = ["\(name): left \(records.count) record\(records.count == 1 ? "" : "s") unsent: \(counts.joined(separator: ", "))"]
        for record in records.prefix(5) {
            lines.append("  entry \(record.entryId)\(record.id.map { " (\($0))" } ?? ""): \(record.reason): \(record.message)")
        }
        if records.count > 5 { lines.append("  … and \(records.count - 5) more (msync sync --json lists them all)") }
        if conflicts > 0 { lines.append("  see them with: msync conflicts --store \(store)") }
        return lines
    }
}
