/// Why a sync operation was refused or failed, with the SDK's wording where its tests assert it.
public enum SyncError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The sync is already running (`Cannot run reSync <id> - sync is still running`).
    case stillRunning(id: Int64)
    /// No sync with this id or name.
    case notFound(String)
    /// A sync with this name exists already.
    case duplicateName(String)
    /// The manager is stopping or stopped (`sync manager has state:<state>`).
    case managerStopped(String)
    /// The sync was stopped cooperatively.
    case stopped
    /// The operation cannot run in the current state: a ghost cleanup of a sync that is active, a second
    /// sync up of one soup, a create attempt that cannot be settled, a stored sync or entry that is
    /// incomplete, a paging sync whose server pages kept shifting.
    case invalidSyncState(String)
    /// A syncs config, target JSON or options that cannot be read (missing keys, unknown type or merge mode…).
    case invalidConfig(String)
    /// A target that cannot run (missing fields, bad query…).
    case invalidTarget(String)
    /// No entry with this id in the soup.
    case entryNotFound(soup: String, entryId: Int64)
    /// The entry has no create attempt to settle.
    case noCreateAttempt(soup: String, entryId: Int64)
    /// The entry is not in conflict (nothing to resolve), or the record given for it is another entry's.
    case noConflict(soup: String, entryId: Int64)
    /// A merged record given to ``SyncManager/resolveConflict(entryId:soup:keeping:idFieldName:modificationDateFieldName:)``
    /// that cannot be merged onto the conflicting record: not an object, or naming another server id.
    case invalidMergedRecord(String)
    /// Another process runs this sync or syncs one of its soups (``SyncManager/OtherProcessPolicy``
    /// said not to wait, or the wait timed out); `what` names the sync and soups.
    case runningInAnotherProcess(String)
    /// A live sync's resync (a catch-up, or an event it could not apply directly) failed; the
    /// live sync retries with backoff.
    case liveResyncFailed(String)

    /// The error as the SDK words it, where its tests assert the text.
    public var description: String {
        switch self {
        case .stillRunning(let id): "Cannot run reSync \(id) - sync is still running"
        case .notFound(let what): "Sync \(what) does not exist"
        case .duplicateName(let name): "Failed to create sync: there is already a sync with name:\(name)"
        case .managerStopped(let state): "sync manager has state:\(state)"
        case .stopped: "sync was stopped"
        case .invalidSyncState(let message), .invalidConfig(let message), .invalidTarget(let message): message
        case .entryNotFound(let soup, let entryId): "No entry \(entryId) in soup \(soup)"
        case .noCreateAttempt(let soup, let entryId): "Entry \(entryId) in soup \(soup) has no create attempt to settle"
        case .noConflict(let soup, let entryId): "Entry \(entryId) in soup \(soup) has no conflict to resolve"
        case .invalidMergedRecord(let why): "Cannot resolve the conflict with that merged record: \(why)"
        case .runningInAnotherProcess(let what): "Another process is syncing \(what)"
        case .liveResyncFailed(let error): "A live sync's resync failed: \(error)"
        }
    }
}
