import FastJSON
import Foundation
@_spi(MSyncInternal) import SalesforceWire

/// The change events of one write transaction, appended to the ``EventLog`` as the records are
/// written (a savepoint rolled back takes its events with it), in Salesforce's Change Data
/// Capture shape: a `ChangeEventHeader` with the transaction's key and each change's sequence
/// number, and the fields that changed.
///
/// Created inside the transaction, used by one ``RecordWriter`` at a time: not `Sendable`.
final class ChangeCapture {
    let schema: Schema
    /// The user the writes are made as (`commitUser`).
    let userId: String
    /// `com/salesforce/api/rest/59.0`: which API made the change.
    let origin: String
    /// The transaction's time (`commitTimestamp`), ms.
    let commitTimestamp: Int64
    let transactionKey = UUID().uuidString.lowercased()
    private var sequenceNumber = 0
    /// The transaction's first replay id, its `commitNumber`.
    private var commitNumber: Int64?
    /// Active topics per object, read once per transaction.
    private var topics: [String: [PushTopics.Topic]] = [:]

    init(schema: Schema, userId: String, origin: String, commitTimestamp: Int64) {
        self.schema = schema
        self.userId = userId
        self.origin = origin
        self.commitTimestamp = commitTimestamp
    }

    /// Fields a change event never carries: bookkeeping, not data.
    private static let omitted: Set<String> = ["Id", "IsDeleted", "SystemModstamp", "LastViewedDate", "LastReferencedDate"]

    /// A record was created with `row` (every column written).
    func created(_ object: ObjectDefinition, id: String, row: [(String, SQLValue)], on db: any SQLConnection) throws {
        guard StreamingChannel.capturesChanges(of: object) else { return }
        let fields = row.filter { !$0.1.isNull && !Self.omitted.contains($0.0) }
        try append(object, ids: [id], type: "CREATE", changed: [], fields: fields, on: db)
        try PushTopics.publish(object, ids: [id], operation: .create, changed: nil, capture: self, on: db)
    }

    /// A record was updated: `after` holds the columns written, `before` their previous values.
    func updated(
        _ object: ObjectDefinition, id: String, after: [(String, SQLValue)], before: [String: SQLValue], on db: any SQLConnection
    ) throws {
        guard StreamingChannel.capturesChanges(of: object) else { return }
        let changed = after.filter { name, value in
            name == "LastModifiedDate" || (!Self.omitted.contains(name) && name != "LastModifiedById" && before[name] != value)
        }
        try append(object, ids: [id], type: "UPDATE", changed: changed.map(\.0), fields: changed, on: db)
        try PushTopics.publish(object, ids: [id], operation: .update, changed: Set(changed.map(\.0)), capture: self, on: db)
    }

    /// Records were deleted (moved to the recycle bin).
    func deleted(_ object: ObjectDefinition, ids: [String], on db: any SQLConnection) throws {
        guard StreamingChannel.capturesChanges(of: object) else { return }
        for id in ids { try append(object, ids: [id], type: "DELETE", changed: [], fields: [], on: db) }
        try PushTopics.publish(object, ids: ids, operation: .delete, changed: nil, capture: self, on: db)
    }

    /// The active topics on `object`, read once per transaction.
    func topics(on object: ObjectDefinition, db: any SQLConnection) throws -> [PushTopics.Topic] {
        if let known = topics[object.name] { return known }
        let found = try PushTopics.active(on: object.name, schema: schema, db: db)
        topics[object.name] = found
        return found
    }

    private func append(
        _ object: ObjectDefinition, ids: [String], type: String, changed: [String], fields: [(String, SQLValue)],
        on db: any SQLConnection
    ) throws {
        sequenceNumber += 1
        let replayId = try EventLog.nextReplayId(on: db)
        let commitNumber = self.commitNumber ?? replayId
        self.commitNumber = commitNumber
        var writer = JSONWriter(reservingCapacity: 512)
        writer.writeRaw(#"{"schema":""#.utf8)
        writer.writeRaw(Self.schemaId(object).utf8)
        writer.writeRaw(#"","payload":{"ChangeEventHeader":{"#.utf8)
        writer.writeKey("entityName")
        writer.writeString(object.name)
        writer.write(punctuation: ",")
        writer.writeKey("recordIds")
        writer.write(.array(ids.map(JSONValue.string)))
        writer.write(punctuation: ",")
        writer.writeKey("changeType")
        writer.writeString(type)
        writer.write(punctuation: ",")
        writer.writeKey("changeOrigin")
        writer.writeString(origin)
        writer.write(punctuation: ",")
        writer.writeKey("transactionKey")
        writer.writeString(transactionKey)
        writer.write(punctuation: ",")
        writer.writeKey("sequenceNumber")
        writer.write(.int(Int64(sequenceNumber)))
        writer.write(punctuation: ",")
        writer.writeKey("commitTimestamp")
        writer.write(.int(commitTimestamp))
        writer.write(punctuation: ",")
        writer.writeKey("commitNumber")
        writer.write(.int(commitNumber))
        writer.write(punctuation: ",")
        writer.writeKey("commitUser")
        writer.writeString(userId)
        writer.writeRaw(#","nulledFields":[],"diffFields":[],"changedFields":"#.utf8)
        writer.write(.array(changed.map(JSONValue.string)))
        writer.write(punctuation: "}")
        for (name, value) in fields {
            writer.write(punctuation: ",")
            writer.writeKey(name)
            FieldCodec.write(value, for: object.field(named: name)?.type ?? .string, to: &writer)
        }
        writer.writeRaw(#"},"event":{"#.utf8)
        try EventLog.insert(
            replayId: replayId, channel: StreamingChannel.changeEvents(of: object), kind: .changeEvent, created: commitTimestamp,
            body: String(decoding: writer.bytes, as: UTF8.self), on: db)
    }

    /// A stable id of an object's event schema (Salesforce sends one with every event): a
    /// hash of its name and fields, as 22 URL-safe characters.
    static func schemaId(_ object: ObjectDefinition) -> String {
        var first: UInt64 = 0xcbf2_9ce4_8422_2325
        var second: UInt64 = 0x8422_2325_cbf2_9ce4
        for byte in ([object.name] + object.fields.map(\.name)).joined(separator: ",").utf8 {
            first = (first ^ UInt64(byte)) &* 0x100_0000_01b3
            second = (second &+ UInt64(byte)) &* 0x100_0000_01b3 ^ (second >> 29)
        }
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var text = ""
        for value in [first, second] {
            var rest = value
            for _ in 0..<11 {
                text.append(alphabet[Int(rest & 63)])
                rest >>= 6
            }
        }
        return text
    }
}

/// What a write transaction needs to capture its changes, taken before it starts (a
/// ``ChangeCapture`` lives inside the transaction only).
struct CaptureSource: Sendable {
    let schema: Schema
    let userId: String
    let origin: String
    let now: Int64

    /// A capture for one transaction.
    func make() -> ChangeCapture {
        ChangeCapture(schema: schema, userId: userId, origin: origin, commitTimestamp: now)
    }
}

extension LocalForce {
    /// The capture of a request's writes through the REST API of `version` (`nil` for
    /// writes outside the API, such as seeding); `nil` when changes are not captured.
    func captureSource(version: String?, userId: String, clock: WriteClock) -> CaptureSource? {
        guard streaming.options.capturesChanges else { return nil }
        return CaptureSource(
            schema: schema, userId: userId, origin: version.map { "com/salesforce/api/rest/\($0)" } ?? "", now: clock.now)
    }
}
