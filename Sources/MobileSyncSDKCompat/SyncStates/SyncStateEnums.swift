import MobileSync

/// A sync's direction, as the SDK names it (`SFSyncStateSyncType`).
public enum SyncType: Int, Sendable {
    /// A sync down (`"syncDown"`).
    case down
    /// A sync up (`"syncUp"`).
    case up

    init(_ kind: MobileSync.SyncState.Kind) { self = kind == .syncDown ? .down : .up }

    var kind: MobileSync.SyncState.Kind { self == .down ? .syncDown : .syncUp }
}

/// A sync's status, as the SDK names it (`SFSyncStateStatus`). A sync waiting for another
/// process (MobileSync's `WAITING`, which the SDK does not have) reads as RUNNING.
public enum SyncStatus: Int, Sendable {
    /// Created, never run.
    case new
    /// The last run was stopped.
    case stopped
    /// Running now.
    case running
    /// The last run finished.
    case done
    /// The last run failed.
    case failed

    init(_ status: MobileSync.SyncState.Status) {
        switch status {
        case .new: self = .new
        case .stopped: self = .stopped
        case .running, .waiting: self = .running
        case .done: self = .done
        case .failed: self = .failed
        }
    }

    var status: MobileSync.SyncState.Status {
        switch self {
        case .new: .new
        case .stopped: .stopped
        case .running: .running
        case .done: .done
        case .failed: .failed
        }
    }
}

/// A merge mode, as the SDK names it (`SFSyncStateMergeMode`). MobileSync's `MERGE_FIELDS`
/// (not in the SDK) reads as `leaveIfChanged`, the mode it refines.
public enum SyncMergeMode: Int, Sendable {
    /// The incoming side wins.
    case overwrite
    /// Records changed on the receiving side are left alone.
    case leaveIfChanged

    init(_ mode: MergeMode) { self = mode == .overwrite ? .overwrite : .leaveIfChanged }

    var mergeMode: MergeMode { self == .overwrite ? .overwrite : .leaveIfChanged }
}
