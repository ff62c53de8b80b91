import FastJSON
import Foundation
import MobileSync
import SalesforceREST
import SmartStore

extension InspectorData {
    /// One page of a soup's entries (in entry order) beside the org's records with the same
    /// ids: each row says which fields differ and whether the entry is dirty locally, changed on
    /// the server since it was synced, gone from the server, or not sent yet.
    func compare(soup: String, page: Int) async throws -> Answer {
        guard let org else { return .error(400, "Start the inspector with --org and --token to compare with the org.") }
        guard page >= 0 else { return .error(400, "page must be a number, 0 or more") }
        let store = try store()
        guard try store.hasSoup(soup) else { return .error(404, "No soup named \(soup)") }
        let entries = try await store.query(.all(soup: soup, orderPath: "_soupEntryId", pageSize: Self.pageSize), pageIndex: page)
        var byType: [String: [String]] = [:]
        for entry in entries {
            guard let id = entry["Id"]?.stringValue.flatMap(SalesforceId.init)?.value,
                let type = entry["attributes"]?["type"]?.stringValue, Self.isName(type)
            else { continue }
            byType[type, default: []].append(id)
        }
        var server: [String: JSONValue] = [:]
        for (type, ids) in byType {
            // Ids are SalesforceIds (15 or 18 letters and digits, checksum checked) and the type
            // is letters, digits and _: safe as written into the query.
            let list = ids.map { "'\($0)'" }.joined(separator: ", ")
            let page = try await org.query("SELECT FIELDS(ALL) FROM \(type) WHERE Id IN (\(list)) LIMIT 200")
            for record in try page.records() {
                if let id = record["Id"]?.stringValue.flatMap(SalesforceId.init)?.value { server[id] = record }
            }
        }
        let asked = Set(byType.values.joined())
        let rows = entries.map { entry in
            let id = entry["Id"]?.stringValue.flatMap(SalesforceId.init)?.value
            return Self.comparison(entry, server: id.flatMap { server[$0] }, compared: id.map(asked.contains) ?? false)
        }
        return Answer(
            status: 200,
            body: ["soup": .string(soup), "page": .int(Int64(page)), "rows": .array(rows), "more": .bool(entries.count == Self.pageSize)])
    }

    /// One row of the comparison.
    /// `compared`: whether the org was asked for this record (an entry without a server id or a
    /// type is not).
    static func comparison(_ entry: JSONValue, server: JSONValue?, compared: Bool) -> JSONValue {
        let id = entry["Id"]?.stringValue
        var states: [JSONValue] = []
        if entry[LocalFields.local]?.boolValue == true { states.append("dirty locally") }
        if LocalFields.isLocalId(id) || id == nil {
            states.append("not on the server yet")
        } else if !compared {
            states.append("not compared (no record type or id the org would know)")
        } else if server == nil {
            states.append("gone on the server")
        } else if let local = entry["LastModifiedDate"]?.stringValue, let remote = server?["LastModifiedDate"]?.stringValue,
            let localDate = SalesforceTime.parse(local), let remoteDate = SalesforceTime.parse(remote),
            remoteDate > localDate
        {
            states.append("changed on the server")
        }
        var localFields: [String: JSONValue] = [:]
        var serverFields: [String: JSONValue] = [:]
        var differs: [JSONValue] = []
        for (name, value) in entry.objectValue ?? [:] where isRecordField(name) {
            localFields[name] = value
            guard let server else { continue }
            let remote = server[name] ?? .null
            serverFields[name] = remote
            if remote != value { differs.append(.string(name)) }
        }
        return [
            "entryId": entry["_soupEntryId"] ?? .null, "Id": id.map(JSONValue.string) ?? .null, "states": .array(states),
            "local": .object(localFields), "server": server == nil ? .null : .object(serverFields),
            "differs": .array(differs.sorted { ($0.stringValue ?? "") < ($1.stringValue ?? "") }),
        ]
    }

    /// A field of the record, not the store's or the sync's bookkeeping.
    static func isRecordField(_ name: String) -> Bool {
        !name.hasPrefix("_") && name != "attributes"
    }

    static func isName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 80 && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
    }
}
