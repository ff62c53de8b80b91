import FastJSON
import Foundation
import SalesforceWire

extension LocalForce {
    /// `GET /recent?limit=n`: recently viewed records of every MRU object, most recent first.
    func recent(_ context: RequestContext) async throws -> APIResponse {
        guard context.request.method == "GET", context.path.count == 1 else { throw APIError.notFound }
        let limit = min(200, max(1, context.request.parameter("limit").flatMap(Int.init) ?? 200))
        var items: [(stamp: Int64, item: JSONValue)] = []
        let schema = self.schema
        for object in schema.objects where object.mruEnabled && object.name != "User" {
            let nameField = object.nameField?.name
            let rows = try await database.read { db in
                try db.rows(
                    """
                    SELECT "Id", coalesce("LastViewedDate", "LastModifiedDate")\(nameField.map { ", \(SQLDialect.quote($0))" } ?? "")
                    FROM \(SQLDialect.quote(object.name)) WHERE "IsDeleted" = 0
                    ORDER BY coalesce("LastViewedDate", "LastModifiedDate") DESC LIMIT \(limit)
                    """, [])
            }
            for row in rows {
                guard let id = row[0].text else { continue }
                var item: [String: JSONValue] = [
                    "attributes": [
                        "type": .string(object.name), "url": .string("/services/data/v\(context.version)/sobjects/\(object.name)/\(id)"),
                    ],
                    "Id": .string(id),
                ]
                if let nameField { item[nameField] = row.count > 2 ? row[2].text.map(JSONValue.string) ?? .null : .null }
                items.append((row[1].integer ?? 0, .object(item)))
            }
        }
        return .json(.array(items.sorted { $0.stamp > $1.stamp }.prefix(limit).map(\.item)))
    }

    /// `GET /sobjects/{T}/updated/?start=&end=` and `/deleted/?start=&end=` (SystemModstamp window).
    func replication(_ object: ObjectDefinition, kind: String, _ context: RequestContext) async throws -> APIResponse {
        guard context.request.method == "GET" else {
            throw APIError(405, "METHOD_NOT_ALLOWED", "HTTP Method '\(context.request.method)' not allowed. Allowed are GET")
        }
        guard let startText = context.request.parameter("start"), let endText = context.request.parameter("end"),
            let start = SalesforceTime.parse(startText), let end = SalesforceTime.parse(endText)
        else {
            throw APIError(400, "INVALID_REPLICATION_DATE", "start and end must be ISO-8601 date-times")
        }
        guard end > start else { throw APIError(400, "INVALID_REPLICATION_DATE", "end date must be after start date") }
        let deleted = kind == "deleted"
        // Whole minutes, as Salesforce covers.
        let covered = end / 60_000 * 60_000
        let rows = try await database.read { db in
            try db.rows(
                """
                SELECT "Id", "SystemModstamp" FROM \(SQLDialect.quote(object.name))
                WHERE "IsDeleted" = \(deleted ? 1 : 0) AND "SystemModstamp" >= \(db.dialect.placeholder(1)) AND "SystemModstamp" < \(db.dialect.placeholder(2))
                ORDER BY "SystemModstamp", "Id"
                """, [.integer(start), .integer(covered)])
        }
        guard rows.count <= 600_000 else { throw APIError(400, "EXCEEDED_ID_LIMIT", "too many ids: narrow the date range") }
        if deleted {
            let records: [JSONValue] = rows.map {
                ["id": .string($0[0].text ?? ""), "deletedDate": .string(SalesforceTime.format($0[1].integer ?? 0))]
            }
            return .json([
                "deletedRecords": .array(records), "earliestDateAvailable": .string(SalesforceTime.format(startedAt / 60_000 * 60_000)),
                "latestDateCovered": .string(SalesforceTime.format(covered)),
            ])
        }
        return .json(["ids": .array(rows.map { .string($0[0].text ?? "") }), "latestDateCovered": .string(SalesforceTime.format(covered))])
    }
}
