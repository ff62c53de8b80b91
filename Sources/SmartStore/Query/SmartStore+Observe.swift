import GRDB

extension SmartStore {
    /// A live query: one page of `spec`'s results now, then again each time a committed write
    /// changes what it returns. Built on GRDB's `ValueObservation`: only transactions that touch
    /// the soups the query reads are looked at, a result equal to the previous one is not
    /// emitted, and when writes come faster than the results are consumed, only the latest
    /// result waits (a burst of writes coalesces into one emission).
    ///
    /// <!-- snippet: Snippets/SmartStoreReference.swift#observe -->
    /// ```swift
    /// for try await rows in store.observe(.smart("select {accounts:Name} from {accounts}", pageSize: 100)) {
    ///     show(rows)
    /// }
    /// ```
    ///
    /// Commits made by another process on the same file (an app extension, another `msync`)
    /// are seen too: while any live query of a file store opened for writing runs, the store
    /// reads SQLite's `data_version` when the other process's Darwin notification arrives (Apple
    /// platforms), or every quarter of a second (elsewhere); with none, nothing is read. (A
    /// store opened read-only sees only its own connection's view.)
    ///
    /// The sequence ends when the task iterating it is cancelled; it throws the query's error
    /// (``SmartStoreError/invalidSmartSQL(_:)``, ``SmartStoreError/unknownSoup(_:)``…).
    public func observe(_ spec: QuerySpec, pageIndex: Int = 0, arguments: [JSONValue]? = nil) -> AsyncThrowingStream<[JSONValue], any Error>
    {
        let work: @Sendable (Database) throws -> [JSONValue]
        do {
            work = querying(spec, bound: try Self.pagedArguments(for: spec, arguments, pageIndex: pageIndex))
        } catch {
            return AsyncThrowingStream { $0.finish(throwing: error) }
        }
        let values = ValueObservation.tracking(work).removeDuplicates().values(in: writer, bufferingPolicy: .bufferingNewest(1))
        let watcher = changeWatcher
        return AsyncThrowingStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
            watcher?.subscribe()
            let task = Task {
                do {
                    for try await rows in values { continuation.yield(rows) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: self.mapped(error))
                }
            }
            continuation.onTermination = { _ in
                task.cancel()
                watcher?.unsubscribe()
            }
        }
    }

    /// A live Smart SQL query (see ``observe(_:pageIndex:arguments:)``): its first `pageSize`
    /// rows now and after each change.
    public func observe(smartSql: String, pageSize: Int, arguments: [JSONValue]? = nil) -> AsyncThrowingStream<[JSONValue], any Error> {
        observe(.smart(smartSql, pageSize: pageSize), arguments: arguments)
    }
}
