import FastJSON

/// Where a live sync is: following the server's change events, catching up, or polling.
public enum LiveStatus: String, Sendable {
    /// Handshaking and subscribing to the server's change events (again, after a failure).
    case connecting = "CONNECTING"
    /// Subscribed; reading what changed while it was not (a resync) before following events.
    case catchingUp = "CATCHING_UP"
    /// Following the server's change events as they commit.
    case live = "LIVE"
    /// The server has no Streaming API: resyncing every poll interval instead.
    case polling = "POLLING"
    /// Not running (stopped by the app, or the manager stopped).
    case stopped = "STOPPED"
}

/// A live sync's state, kept in its ``SyncState`` (`"live"` in the stored document), so a
/// restarted app resumes from the last event it applied.
public struct LiveSyncInfo: Sendable, Equatable {
    /// What the live sync is doing.
    public var status: LiveStatus
    /// The replay id of the last change event applied: the next run subscribes after it.
    public var replayId: Int64?
    /// What happened last that the app may want to show: a fallback to a full resync, a lost
    /// connection and when it retries, polling because the server has no Streaming API.
    public var note: String
    /// Change events applied to the store directly.
    public var appliedChanges: Int
    /// Resyncs run to bring the store up to date (catch-ups, and events that could not be
    /// applied directly: a record the query may filter, fields the event does not carry).
    public var resyncs: Int
    /// Changes not applied because the local record has changes of its own (the next sync up
    /// sends those; a sync down then brings the server's state).
    public var skippedDirty: Int
    /// A full resync the live sync owes (its replay id fell out of the server's retention
    /// window, so events were lost): kept until one succeeds, through failures and restarts.
    public var owesFullResync: Bool
    /// A ghost cleanup the live sync owes (deletes may have reached no event: a replay id out of
    /// the retention window, a gap or overflow event): kept until one succeeds.
    public var owesGhostCleanup: Bool
    /// The ids of records whose changes were skipped while they were dirty: each is read again
    /// from the server once a sync up has cleaned it (its change may not have reached it), and
    /// leaves this set then. More than ``maximumRereads`` become a full resync.
    public var pendingRereads: Set<String>
    /// The most ids ``pendingRereads`` keeps.
    public static let maximumRereads = 10_000

    /// A new live sync's state.
    public init(
        status: LiveStatus = .stopped, replayId: Int64? = nil, note: String = "", appliedChanges: Int = 0, resyncs: Int = 0,
        skippedDirty: Int = 0, owesFullResync: Bool = false, owesGhostCleanup: Bool = false, pendingRereads: Set<String> = []
    ) {
        self.status = status
        self.replayId = replayId
        self.note = note
        self.appliedChanges = appliedChanges
        self.resyncs = resyncs
        self.skippedDirty = skippedDirty
        self.owesFullResync = owesFullResync
        self.owesGhostCleanup = owesGhostCleanup
        self.pendingRereads = pendingRereads
    }

    init(json: JSONValue) {
        self.init(
            status: json["status"]?.stringValue.flatMap(LiveStatus.init(rawValue:)) ?? .stopped, replayId: json["replayId"]?.int64Value,
            note: json["note"]?.stringValue ?? "", appliedChanges: Int(clamping: json["appliedChanges"]?.int64Value ?? 0),
            resyncs: Int(clamping: json["resyncs"]?.int64Value ?? 0), skippedDirty: Int(clamping: json["skippedDirty"]?.int64Value ?? 0),
            owesFullResync: json["owesFullResync"] == true, owesGhostCleanup: json["owesGhostCleanup"] == true,
            pendingRereads: Set((json["pendingRereads"]?.arrayValue ?? []).prefix(Self.maximumRereads).compactMap(\.stringValue)))
    }

    var json: JSONValue {
        var json: [String: JSONValue] = [
            "status": .string(status.rawValue), "note": .string(note), "appliedChanges": .int(Int64(appliedChanges)),
            "resyncs": .int(Int64(resyncs)), "skippedDirty": .int(Int64(skippedDirty)),
        ]
        if let replayId { json["replayId"] = .int(replayId) }
        if owesFullResync { json["owesFullResync"] = true }
        if owesGhostCleanup { json["owesGhostCleanup"] = true }
        if !pendingRereads.isEmpty { json["pendingRereads"] = .array(pendingRereads.sorted().map(JSONValue.string)) }
        return .object(json)
    }
}
