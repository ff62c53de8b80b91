public import Foundation

/// What one background round ran (``BackgroundSyncRound``): when, each sync's outcome, and
/// whether the system's time ran out first.
public struct BackgroundSyncReport: Sendable, Codable, Equatable {
    /// One sync of the round.
    public struct Entry: Sendable, Codable, Equatable {
        /// The sync's name.
        public var name: String
        /// Its status when the round left it (`DONE`, `FAILED`, `STOPPED`), or `NOT_RUN` when
        /// the time ran out before its turn.
        public var status: String
        /// Why it failed or did not run; empty otherwise.
        public var error: String
    }

    /// When the round started.
    public var started: Date
    /// When it ended.
    public var ended: Date
    /// Whether the time ran out (``BackgroundSyncRound/expire()``): the syncs under way ended
    /// STOPPED, resumable by the next round, and the rest did not run.
    public var expired: Bool
    /// The syncs, in the order they ran: sync ups first, then sync downs.
    public var syncs: [Entry]

    /// Whether every sync ended DONE before the time ran out.
    public var succeeded: Bool { !expired && syncs.allSatisfy { $0.status == SyncState.Status.done.rawValue } }
}
