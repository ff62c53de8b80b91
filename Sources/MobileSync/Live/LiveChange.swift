/// One change a live sync brought into the store (or could not): what ``SyncManager/liveChanges()`` yields.
public struct LiveChange: Sendable, Equatable {
    /// What became of the change.
    public enum Outcome: String, Sendable {
        /// Written into the store from the event itself.
        case applied
        /// Read from the server by a resync (the event could not be applied directly).
        case resynced
        /// Not applied: the local record has changes of its own, which the next sync up sends.
        case skippedDirty
    }

    /// The live sync's name.
    public var syncName: String
    /// `CREATE`, `UPDATE`, `DELETE`, `UNDELETE` or a gap type.
    public var changeType: String
    /// The records it concerns.
    public var recordIds: [String]
    /// For an update, the fields that changed.
    public var changedFields: [String]
    /// Whether it was applied, resynced or skipped.
    public var outcome: Outcome
    /// The event's replay id.
    public var replayId: Int64
}
