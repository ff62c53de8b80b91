import FastJSON
import Foundation
@_spi(MSyncInternal) import SalesforceWire

/// Platform events: objects whose name ends in `__e` (defined in the schema file). Creating a
/// record of one, through any record endpoint, publishes it on `/event/<Name>__e` instead of
/// storing it, as Salesforce does; the answer carries an id like any create's.
enum PlatformEvents {
    /// Publishes the event in the caller's transaction (it is delivered once that commits).
    static func publish(
        _ object: ObjectDefinition, values: [(FieldDefinition, SQLValue)], userId: String, now: Int64, on db: any SQLConnection
    ) throws -> SalesforceId {
        let sequence = try StorageSchema.nextRecordNumber(object, on: db)
        let id = SalesforceId(prefix: object.keyPrefix, sequence: UInt64(clamping: sequence))
        var writer = JSONWriter(reservingCapacity: 256)
        writer.writeRaw(#"{"schema":""#.utf8)
        writer.writeRaw(ChangeCapture.schemaId(object).utf8)
        writer.writeRaw(#"","payload":{"CreatedDate":"#.utf8)
        writer.writeString(SalesforceTime.format(now))
        writer.writeRaw(#","CreatedById":"#.utf8)
        writer.writeString(userId)
        for (field, value) in values where !value.isNull {
            writer.write(punctuation: ",")
            writer.writeKey(field.name)
            FieldCodec.write(value, for: field.type, to: &writer)
        }
        guard writer.bytes.count <= EventLog.maximumEventBytes else {
            throw APIError(
                400, "LIMIT_EXCEEDED",
                "The event message is larger than \(EventLog.maximumEventBytes) bytes (1 MB), the most an event may be")
        }
        writer.writeRaw(#"},"event":{"EventUuid":"#.utf8)
        writer.writeString(UUID().uuidString.lowercased())
        writer.write(punctuation: ",")
        let event = EventLog.Event(
            replayId: try EventLog.nextReplayId(on: db), channel: "/event/" + object.name,
            body: String(decoding: writer.bytes, as: UTF8.self))
        try EventLog.insert([(event, .platformEvent)], created: now, on: db)
        return id
    }
}
