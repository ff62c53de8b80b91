public import FastJSON

/// A record a sync left alone because it changed on both sides: not sent (sync up) or not
/// merged (sync down) until ``SyncManager/resolveConflict(entryId:soup:keeping:idFieldName:modificationDateFieldName:)`` settles it.
///
/// The record carries a `SYNC_CONFLICT` error in `__last_error__`; the server's version, as the
/// sync saw it, is kept beside it in the store, with the record's base (its state as last
/// synced). Conflicts are counted in ``SyncState/conflictCount``.
public struct SyncConflict: Sendable, Equatable {
    /// How the two sides disagree.
    public enum Kind: String, Sendable {
        /// Changed here and on the server: in LEAVE_IF_CHANGED mode, any change on the server
        /// since the local copy; in MERGE_FIELDS mode, ``SyncConflict/fields`` changed on both
        /// sides to different values.
        case changedOnBothSides = "CHANGED_ON_BOTH_SIDES"
        /// Changed here, deleted on the server.
        case deletedOnServer = "DELETED_ON_SERVER"
        /// Deleted here, changed on the server.
        case deletedLocally = "DELETED_LOCALLY"
    }

    /// The record's soup.
    public var soupName: String
    /// The record's `_soupEntryId`.
    public var entryId: Int64
    /// How the sides disagree.
    public var kind: Kind
    /// The fields at stake: those changed on both sides to different values; when no field is
    /// (LEAVE_IF_CHANGED holds back a record the server changed at all), those of the sync's field
    /// list where the local and server versions differ (not the id, the modification date, nor
    /// a relationship's path). Empty for a delete, and when nothing was compared.
    public var fields: [String]
    /// The record as the store holds it now.
    public var local: JSONValue
    /// The server's version when the conflict was found; nil when the server deleted it.
    public var server: JSONValue?
    /// The record as last synced (nil when unknown: created here, or edited before bases were kept).
    public var base: JSONValue?
    /// When the conflict was found (epoch ms, the client's clock).
    public var detectedAt: Int64

    /// A conflict as found.
    public init(
        soupName: String, entryId: Int64, kind: Kind, fields: [String], local: JSONValue, server: JSONValue?, base: JSONValue?,
        detectedAt: Int64
    ) {
        self.soupName = soupName
        self.entryId = entryId
        self.kind = kind
        self.fields = fields
        self.local = local
        self.server = server
        self.base = base
        self.detectedAt = detectedAt
    }
}

/// Which version of a conflicting record to keep (``SyncManager/resolveConflict(entryId:soup:keeping:idFieldName:modificationDateFieldName:)``).
public enum ConflictResolution: Sendable, Equatable {
    /// The local record: sent on the next sync up, on top of the server version the conflict
    /// saw (a delete deletes it; a record the server deleted is created again). A server change
    /// made after that version is a new conflict, never silently overwritten.
    case local
    /// The server's version: the record takes it and is clean (deleted, if the server deleted it).
    case server
    /// Fields of your own, merged onto the local record and sent on the next sync up like
    /// ``local``: the fields given replace the local record's, the others stay. The record's
    /// server id, `attributes` and the store's and engine's fields (`_soup…`, `__…__`) are never
    /// taken from it, so a partial record (`.merged(["Name": "Acme (merged)"])`) is enough. Its
    /// `_soupEntryId` and server id, if given, must be the conflicting entry's.
    case merged(JSONValue)
}
