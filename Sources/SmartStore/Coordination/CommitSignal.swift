import GRDB

/// "A store's file has a new commit", said between processes: the platform's own way where it has
/// one (``DarwinCommitSignal`` on Apple platforms), so that live queries in an app and its
/// extensions wake on each other's commits without polling. Nil elsewhere: ``ChangeWatcher``
/// polls there.
protocol CommitSignal: Sendable {
    /// Says that this process committed to the store.
    func post()
    /// Calls `handler` (on a serial queue of its own) each time any process posts; returns what
    /// stops it, or nil when the platform refuses.
    func observe(_ handler: @escaping @Sendable () -> Void) -> (@Sendable () -> Void)?
}

/// The platform's signal for the store file at `path`, if it has one.
func platformCommitSignal(storePath path: String) -> (any CommitSignal)? {
    #if canImport(Darwin)
        DarwinCommitSignal(storePath: path)
    #else
        _ = path
        return nil
    #endif
}

/// Posts the signal after each commit of the connection it observes that changed rows (it
/// observes no row events, so it costs nothing per row; an empty transaction, such as a live
/// query's wake-up, posts nothing). Called on the writer's queue only.
final class CommitPoster: TransactionObserver {
    private let signal: any CommitSignal
    /// The connection's count of changed rows at the last commit.
    private var changes = 0

    init(signal: any CommitSignal) {
        self.signal = signal
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: Database) {
        let total = db.totalChangesCount
        guard total != changes else { return }
        changes = total
        signal.post()
    }
    func databaseDidRollback(_ db: Database) {}
}
