import FastJSON
import Foundation
@_spi(MSyncInternal) import SalesforceWire

/// The change events of one write transaction, in Salesforce's Change Data Capture shape: a
/// `ChangeEventHeader` with the transaction's key and each change's sequence number, and the
/// fields that changed.
///
/// Events are kept as the records are written and go to the ``EventLog`` in ``flush(on:)``, at
/// the end of the transaction, under replay ids reserved at once: the replay counter, which
/// every writer of the org needs, is then locked only from the flush to the commit, not for
/// the whole transaction. A savepoint rolled back drops the events taken since
/// (``withSavepoint(_:capture:_:)``). Use ``SQLDatabase/write(capturing:_:)``, which flushes.
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
    /// Active topics per object, read once per transaction.
    private var topics: [String: [PushTopics.Topic]] = [:]
    /// Event schema ids per object, computed once per transaction.
    private var schemaIds: [String: String] = [:]
    /// Events not yet in the log, in order.
    private var pending: [PendingEvent] = []
    /// The bytes of PushTopic events taken so far (``PushTopics/maximumBytesPerTransaction``).
    var topicBytes = 0

    /// An event waiting for its replay id. A change event's body holds the transaction's
    /// `commitNumber` (its first replay id), known at the flush: the body is `head`, the number
    /// and `tail`; other events' bodies are `head` alone.
    private struct PendingEvent {
        var channel: String
        var kind: StreamingChannel.Kind
        var head: String
        var tail: String?
    }

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
        append(object, ids: [id], type: "CREATE", changed: [], fields: fields)
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
        append(object, ids: [id], type: "UPDATE", changed: changed.map(\.0), fields: changed)
        try PushTopics.publish(object, ids: [id], operation: .update, changed: Set(changed.map(\.0)), capture: self, on: db)
    }

    /// Records were deleted (moved to the recycle bin).
    func deleted(_ object: ObjectDefinition, ids: [String], on db: any SQLConnection) throws {
        guard StreamingChannel.capturesChanges(of: object) else { return }
        for id in ids { append(object, ids: [id], type: "DELETE", changed: [], fields: []) }
        try PushTopics.publish(object, ids: ids, operation: .delete, changed: nil, capture: self, on: db)
    }

    /// Where the transaction's events stand: a savepoint's mark, to drop those it rolls back.
    struct Mark {
        let events: Int
        let sequenceNumber: Int
        let topicBytes: Int
    }

    /// The mark of the events taken so far.
    var mark: Mark { Mark(events: pending.count, sequenceNumber: sequenceNumber, topicBytes: topicBytes) }

    /// Drops the events taken since `mark` (their writes were rolled back); the next event
    /// takes the sequence number the first of them had, and their bytes are not counted.
    func rollBack(to mark: Mark) {
        if mark.events >= 0, mark.events < pending.count { pending.removeSubrange(mark.events...) }
        sequenceNumber = mark.sequenceNumber
        topicBytes = mark.topicBytes
    }

    /// Keeps an event of this transaction (a push topic's, say) for the flush; `body` is the
    /// event's `data` up to its `event` member's last field (see ``EventLog/Event``).
    func add(channel: String, kind: StreamingChannel.Kind, body: String) {
        pending.append(PendingEvent(channel: channel, kind: kind, head: body, tail: nil))
    }

    /// Writes the pending events to the log under consecutive replay ids, one counter update
    /// for all of them. Call it last in the transaction: the counter stays locked until commit.
    func flush(on db: any SQLConnection) throws {
        guard !pending.isEmpty else { return }
        let last = try StorageSchema.reserve(EventLog.replayCounter, count: pending.count, on: db)
        let first = last - Int64(pending.count) + 1
        let commitNumber = String(first)
        let events = pending.enumerated().map { offset, event in
            let body = event.tail.map { event.head + commitNumber + $0 } ?? event.head
            return (EventLog.Event(replayId: first + Int64(offset), channel: event.channel, body: body), event.kind)
        }
        try EventLog.insert(events, created: commitTimestamp, on: db)
        pending = []
    }

    /// The active topics on `object`, read once per transaction.
    func topics(on object: ObjectDefinition, db: any SQLConnection) throws -> [PushTopics.Topic] {
        if let known = topics[object.name] { return known }
        let found = try PushTopics.active(on: object.name, schema: schema, db: db)
        topics[object.name] = found
        return found
    }

    private func append(_ object: ObjectDefinition, ids: [String], type: String, changed: [String], fields: [(String, SQLValue)]) {
        sequenceNumber += 1
        let schemaId = schemaIds[object.name] ?? Self.schemaId(object)
        schemaIds[object.name] = schemaId
        var writer = JSONWriter(reservingCapacity: 512)
        writer.writeRaw(#"{"schema":""#.utf8)
        writer.writeRaw(schemaId.utf8)
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
        let head = String(decoding: writer.bytes, as: UTF8.self)
        writer = JSONWriter(reservingCapacity: 512)
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
        guard head.utf8.count + writer.bytes.count <= EventLog.maximumEventBytes || fields.isEmpty else {
            // Salesforce sends a gap event (the header alone) for a change too large to send:
            // subscribers read the records themselves.
            sequenceNumber -= 1
            append(object, ids: ids, type: "GAP_" + type, changed: [], fields: [])
            return
        }
        pending.append(
            PendingEvent(
                channel: StreamingChannel.changeEvents(of: object), kind: .changeEvent, head: head,
                tail: String(decoding: writer.bytes, as: UTF8.self)))
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

extension SQLDatabase {
    /// Runs `body` in a write transaction with a capture made from `source` (none when nil),
    /// whose events go to the log as the transaction's last statements (``ChangeCapture/flush(on:)``).
    func write<T: Sendable>(
        capturing source: CaptureSource?, _ body: @Sendable @escaping (any SQLConnection, ChangeCapture?) throws -> T
    ) async throws -> T {
        try await write { db in
            let capture = source?.make()
            let result = try body(db, capture)
            try capture?.flush(on: db)
            return result
        }
    }
}
