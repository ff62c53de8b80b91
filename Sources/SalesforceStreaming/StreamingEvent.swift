public import FastJSON

/// One event a channel delivered.
public struct StreamingEvent: Sendable {
    /// The channel it came on (`/data/AccountChangeEvent`, `/topic/Name`, `/event/Name__e`).
    public var channel: String
    /// Its replay id: subscribe with ``ReplayFrom/after(_:)`` and it to resume after it.
    public var replayId: Int64
    /// The message's `data`: `payload` (change and platform events) or `sobject` (PushTopics), and `event`.
    public var data: JSONValue

    /// An event; see the properties.
    public init(channel: String, replayId: Int64, data: JSONValue) {
        self.channel = channel
        self.replayId = replayId
        self.data = data
    }

    /// The event as a Change Data Capture change, when it is one.
    public var change: ChangeEvent? { ChangeEvent(data["payload"] ?? .null) }
}

/// A Change Data Capture event's content: its `ChangeEventHeader` and the fields it carries.
public struct ChangeEvent: Sendable {
    /// What happened to the records.
    public enum ChangeType: String, Sendable {
        case create = "CREATE"
        case update = "UPDATE"
        case delete = "DELETE"
        case undelete = "UNDELETE"
        /// Gap events: a change the server could not describe; read the records again.
        case gapCreate = "GAP_CREATE"
        case gapUpdate = "GAP_UPDATE"
        case gapDelete = "GAP_DELETE"
        case gapUndelete = "GAP_UNDELETE"
        /// Too many changes to describe one by one (a mass update): read the records again.
        case gapOverflow = "GAP_OVERFLOW"
    }

    /// The object (`Account`).
    public var entityName: String
    /// The records changed (one, or several changed the same way in one transaction).
    public var recordIds: [String]
    /// What happened: created, updated, deleted, undeleted, or a gap.
    public var changeType: ChangeType
    /// For an update, the fields whose values changed (`LastModifiedDate` among them).
    public var changedFields: [String]
    /// The transaction's key: changes with the same key committed together.
    public var transactionKey: String
    /// The change's position in its transaction.
    public var sequenceNumber: Int64
    /// When the transaction committed (epoch ms).
    public var commitTimestamp: Int64
    /// Who made the change.
    public var commitUser: String
    /// The fields the event carries: all of a created record's (nulls left out), an update's
    /// changed ones (nulls included).
    public var fields: [String: JSONValue]

    /// Reads a change event's `payload`; `nil` when it has no `ChangeEventHeader`.
    public init?(_ payload: JSONValue) {
        guard case .object(var members) = payload, let header = members.removeValue(forKey: "ChangeEventHeader"),
            let entityName = header["entityName"]?.stringValue, let type = header["changeType"]?.stringValue,
            let changeType = ChangeType(rawValue: type)
        else { return nil }
        self.entityName = entityName
        self.changeType = changeType
        self.recordIds = header["recordIds"]?.arrayValue?.compactMap(\.stringValue) ?? []
        self.changedFields = header["changedFields"]?.arrayValue?.compactMap(\.stringValue) ?? []
        self.transactionKey = header["transactionKey"]?.stringValue ?? ""
        self.sequenceNumber = header["sequenceNumber"]?.int64Value ?? 0
        self.commitTimestamp = header["commitTimestamp"]?.int64Value ?? 0
        self.commitUser = header["commitUser"]?.stringValue ?? ""
        self.fields = members
    }
}
