import FastJSON
import Foundation
import SOQL
@_spi(MSyncInternal) import SalesforceWire

extension LocalForce {
    /// Ids per page of priming records.
    static let primingPageSize = 2000

    /// Every record the rules name (the first rule to name one wins), in rule order and by
    /// `SystemModstamp` within a rule, changed after `changedAfter` when given.
    private static func primingRecords(
        _ rules: [BriefcaseRule], schema: Schema, now: Date, changedAfter threshold: Int64?, on db: any SQLConnection
    ) throws -> [(object: String, id: String, stamp: Int64)] {
        var seen: Set<String> = []
        var result: [(String, String, Int64)] = []
        for rule in rules {
            guard let object = schema.object(named: rule.object) else { continue }
            let query = try Self.parse(
                "SELECT Id, SystemModstamp FROM \(object.name)" + (rule.condition.map { " WHERE \($0)" } ?? "")
                    + " ORDER BY SystemModstamp")
            let engine = QueryEngine(schema: schema, db: db, now: now, includeDeleted: false)
            let ids: [String]
            do {
                ids = try engine.snapshot(query).ids
            } catch {
                throw Self.apiError(error, query.description)
            }
            for chunk in stride(from: 0, to: ids.count, by: 500) {
                let slice = Array(ids[chunk..<min(ids.count, chunk + 500)])
                let list = slice.indices.map { db.dialect.placeholder($0 + 1) }.joined(separator: ", ")
                let rows = try db.rows(
                    "SELECT \"Id\", \"SystemModstamp\" FROM \(SQLDialect.quote(object.name)) WHERE \"Id\" IN (\(list))",
                    slice.map(SQLValue.text))
                let stamps = Dictionary(rows.map { ($0[0].text ?? "", $0[1].integer ?? 0) }, uniquingKeysWith: { first, _ in first })
                for id in slice where seen.insert(id).inserted {
                    let stamp = stamps[id] ?? 0
                    if let threshold, stamp <= threshold { continue }
                    result.append((object.name, id, stamp))
                }
            }
        }
        return result
    }

    /// `GET /connect/briefcase/priming-records[?relayToken=…|?changedAfterTimestamp=…]`.
    ///
    /// The briefcase's rules are evaluated in order; their records (ids and `systemModstamp`)
    /// are served in pages of 2000, continued with an opaque `relayToken`.
    func primingRecords(_ context: RequestContext) async throws -> APIResponse {
        guard context.request.method == "GET", context.path == ["connect", "briefcase", "priming-records"] else { throw APIError.notFound }
        let relayToken = context.request.parameter("relayToken")
        let changedAfterText = context.request.parameter("changedAfterTimestamp")
        if relayToken != nil && changedAfterText != nil {
            throw APIError(400, "INVALID_API_INPUT", "relayToken and changedAfterTimestamp are mutually exclusive")
        }
        var changedAfter: Int64?
        var offset = 0
        if let relayToken {
            guard let state = Self.decodeRelayToken(relayToken) else { throw APIError(400, "INVALID_API_INPUT", "Invalid relayToken") }
            (offset, changedAfter) = state
        } else if let changedAfterText {
            guard let parsed = SalesforceTime.parse(changedAfterText) else {
                throw APIError(400, "INVALID_API_INPUT", "Invalid changedAfterTimestamp: \(changedAfterText)")
            }
            changedAfter = parsed
        }
        let (schema, rules, now, threshold) = (self.schema, self.briefcaseRules, requestClock().date, changedAfter)
        let all = try await database.read { db in
            try Self.primingRecords(rules, schema: schema, now: now, changedAfter: threshold, on: db)
        }
        let page = all.dropFirst(offset).prefix(Self.primingPageSize)
        var byObject: [String: [JSONValue]] = [:]
        for record in page {
            byObject[record.object, default: []].append([
                "id": .string(record.id), "systemModstamp": .string(SalesforceTime.format(record.stamp, zulu: true)),
            ])
        }
        let next = offset + page.count
        let token: JSONValue = next < all.count ? .string(Self.encodeRelayToken(offset: next, changedAfter: changedAfter)) : .null
        return .json([
            "primingRecords": .object(byObject.mapValues { ["012000000000000AAA": .array($0)] }),
            "relayToken": token,
            "ruleErrors": [],
            "stats": [
                "recordCountServed": .int(Int64(page.count)), "recordCountTotal": .int(Int64(all.count)),
                "ruleCountServed": .int(Int64(rules.count)), "ruleCountTotal": .int(Int64(rules.count)),
            ],
        ])
    }

    private static func encodeRelayToken(offset: Int, changedAfter: Int64?) -> String {
        Data("\(offset):\(changedAfter.map(String.init) ?? "")".utf8).base64EncodedString()
    }

    private static func decodeRelayToken(_ token: String) -> (Int, Int64?)? {
        guard let data = Data(base64Encoded: token), let text = String(data: data, encoding: .utf8) else { return nil }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let offset = Int(parts[0]), offset >= 0 else { return nil }
        return (offset, parts[1].isEmpty ? nil : Int64(parts[1]))
    }

    /// `GET /ui-api/layout/{T}`: a layout generated from the schema (one section, two columns).
    func layout(_ context: RequestContext) async throws -> APIResponse {
        guard context.request.method == "GET", context.path.count == 3, context.path[1] == "layout",
            let object = schema.object(named: context.path[2])
        else { throw APIError.notFound }
        let layoutType = context.request.parameter("layoutType") ?? "Full"
        let mode = context.request.parameter("mode") ?? "View"
        let fields = object.fields.filter {
            !SystemFields.names.contains($0.name) || $0.name == "CreatedById" || $0.name == "LastModifiedById"
        }
        var rows: [JSONValue] = []
        for pair in stride(from: 0, to: fields.count, by: 2) {
            let items: [JSONValue] = fields[pair..<min(fields.count, pair + 2)].map { field in
                [
                    "editableForNew": .bool(!field.readOnly), "editableForUpdate": .bool(!field.readOnly), "label": .string(field.label),
                    "required": .bool(field.required), "sortable": false,
                    "layoutComponents": [["apiName": .string(field.name), "componentType": "Field", "label": .string(field.label)]],
                ]
            }
            rows.append(["layoutItems": .array(items)])
        }
        return .json([
            "eTag": .string(String(format: "%08x", object.name.hashValue & 0xffff_ffff)),
            "id": .string(SalesforceId(prefix: "00h", sequence: UInt64(schema.objects.firstIndex { $0.name == object.name } ?? 0)).value),
            "layoutType": .string(layoutType), "mode": .string(mode), "objectApiName": .string(object.name),
            "recordTypeId": .string(context.request.parameter("recordTypeId") ?? "012000000000000AAA"),
            "saveOptions": [],
            "sections": [
                [
                    "collapsible": false, "columns": 2, "heading": .string("\(object.label) Information"), "id": "01B000000000001AAA",
                    "layoutRows": .array(rows), "rows": .int(Int64(rows.count)), "useHeading": true,
                ]
            ],
        ])
    }
}
