/// A channel of the Streaming API: Change Data Capture (`/data/ChangeEvents`,
/// `/data/AccountChangeEvent`, `/data/Invoice__ChangeEvent`), a PushTopic (`/topic/Name`) or a
/// platform event (`/event/Name__e`).
struct StreamingChannel: Hashable, Sendable {
    /// What publishes on a channel; stored with each event.
    enum Kind: String, Sendable {
        case changeEvent = "cdc"
        case pushTopic = "topic"
        case platformEvent = "event"
    }

    /// The channel as clients name it.
    let name: String
    let kind: Kind
    /// The object whose changes or events it carries (`nil` for `/data/ChangeEvents` and topics).
    let objectName: String?

    /// Whether it is `/data/ChangeEvents`, the change events of every object.
    var isAllChangeEvents: Bool { kind == .changeEvent && objectName == nil }

    static let allChangeEvents = "/data/ChangeEvents"

    /// The channel `name` names in `schema`, or `nil` when it names nothing there. A topic's
    /// existence is the caller's to check (topics are records).
    init?(_ name: String, schema: Schema) {
        self.name = name
        if name == Self.allChangeEvents {
            (kind, objectName) = (.changeEvent, nil)
        } else if name.hasPrefix("/data/"), name.hasSuffix("ChangeEvent") {
            let entity = String(name.dropFirst("/data/".count).dropLast("ChangeEvent".count))
            let objectName = entity.hasSuffix("__") ? entity + "c" : entity
            guard !entity.isEmpty, let object = schema.object(named: objectName), object.name == objectName,
                Self.capturesChanges(of: object)
            else { return nil }
            (kind, self.objectName) = (.changeEvent, objectName)
        } else if name.hasPrefix("/topic/") {
            let topic = String(name.dropFirst("/topic/".count))
            guard PushTopics.isValidName(topic) else { return nil }
            (kind, objectName) = (.pushTopic, nil)
        } else if name.hasPrefix("/event/") {
            let eventName = String(name.dropFirst("/event/".count))
            guard let object = schema.object(named: eventName), object.name == eventName, object.isPlatformEvent else { return nil }
            (kind, objectName) = (.platformEvent, eventName)
        } else {
            return nil
        }
    }

    /// The change event channel of an object: `/data/AccountChangeEvent`, `/data/Invoice__ChangeEvent`.
    static func changeEvents(of object: ObjectDefinition) -> String {
        "/data/" + (object.custom ? String(object.name.dropLast()) : object.name) + "ChangeEvent"
    }

    /// Whether changes to records of `object` publish change events (topics and platform events do not).
    static func capturesChanges(of object: ObjectDefinition) -> Bool {
        !object.isPlatformEvent && object.name != PushTopics.objectName
    }
}
